/// <reference lib="dom" />
/**
 * A run as a timeline: its model turns and tool calls on one time axis (a waterfall of positioned bars, set
 * through the CSSOM so the page's CSP needs no inline style), each with what it said or returned, retries
 * of the model request and re-asks for the final answer named as such, the subagent a spawn call started
 * nested under it, and for a failed run the step that failed, in words. Text nodes only.
 */
import { duration, h, text } from "./dom.ts";

type Child = Node | string | null | undefined | false;

/** Where on the axis, in percent of the run's span. */
function bar(cls: string, startMs: number, durMs: number | undefined, span: { t0: number; total: number }, label: string): HTMLElement {
  const b = h("div", { class: `bar ${cls}`, role: "img", "aria-label": label });
  const left = Math.min(100, Math.max(0, ((startMs - span.t0) / span.total) * 100));
  b.style.marginLeft = `${left.toFixed(2)}%`;
  b.style.width = `${Math.max(0.5, Math.min(100 - left, ((durMs ?? 0) / span.total) * 100)).toFixed(2)}%`;
  return b;
}

const usageWords = (u: any) =>
  u ? `${u.inputTokens ?? 0} in, ${u.outputTokens ?? 0} out${u.reasoningTokens ? ` (${u.reasoningTokens} reasoning)` : ""}` : "";

/** One row: a label, the bar on the axis, and what the step said (folded). */
function step(id: string, cls: string, label: string, axis: HTMLElement, body: Child[]): HTMLElement {
  const shown = body.filter(Boolean);
  return h(
    "li",
    { class: `step ${cls}`, "data-step": id },
    h("div", { class: "step-label" }, label),
    h("div", { class: "track" }, axis),
    shown.length ? h("div", { class: "step-body" }, ...shown) : null,
  );
}

/** What a failed run failed at, in words. */
export function failedStepWords(run: any): string | undefined {
  const f = run.detail?.failure;
  const err = run.error;
  if (!f && !err) return undefined;
  const message = f?.message ?? err?.message ?? "";
  const code = f?.code ?? err?.code ?? "";
  if (f?.kind === "tool") return `Failed while tool call ${f.tool} (turn ${f.turn}) was running: ${code}: ${message}`;
  const turn = run.detail?.turns?.find((t: any) => t.turn === f?.turn);
  const what =
    f?.reason === "output-invalid"
      ? "the model's final answer did not match the output schema"
      : f?.reason === "gave-up"
        ? "the model gave up"
        : f?.reason === "content-filter"
          ? "the provider's content filter withheld the answer"
          : f?.reason === "empty-answer"
            ? "the model's final answer was empty"
            : "the model's turn";
  return `Failed at turn ${f?.turn ?? turn?.turn ?? "?"} (${what}): ${code}: ${message}`;
}

/** The run's timeline, drawn from its detail (and the snapshot's subagents, to nest them). */
export function runTimeline(run: any, subagents: any[] | undefined): HTMLElement {
  const turns: any[] = run.detail?.turns ?? [];
  const t0 = Date.parse(run.startedAt);
  const end = run.endedAt ? Date.parse(run.endedAt) : Date.now();
  const span = { t0, total: Math.max(1, end - t0) };
  const running = run.status === "running";
  const rows: HTMLElement[] = [];
  for (const t of turns) {
    const start = t.startedAt ? Date.parse(t.startedAt) : t0;
    const inFlight = t.finishReason === undefined && running;
    const dur = t.durationMs ?? (inFlight ? Date.now() - start : undefined);
    const label = `Turn ${t.turn}${t.reask ? ` · retry ${t.reask} of the final answer` : ""}`;
    rows.push(
      step(`turn-${t.turn}`, `model${inFlight ? " live" : ""}`, label, bar("model", start, dur, span, `${label}: ${duration(dur ?? 0)}`), [
        h(
          "p",
          { class: "muted" },
          [
            dur !== undefined ? duration(dur) : "",
            inFlight ? "answering…" : t.finishReason ? `finish ${t.finishReason}` : "",
            usageWords(t.usage),
            t.model ?? "",
          ]
            .filter(Boolean)
            .join(" · "),
        ),
        t.reask ? h("p", { class: "muted" }, "asked again: the answer before did not match the output schema") : null,
        ...(t.retries ?? []).map((r: any) =>
          h(
            "p",
            { class: "retry", "data-retry": String(r.retry) },
            `retry ${r.retry} of the model request after ${r.status ? `HTTP ${r.status}` : "a failure"} (${r.reason}); waited ${duration(r.delayMs)}`,
          ),
        ),
        t.reasoning ? h("details", {}, h("summary", {}, "Reasoning"), h("pre", { class: "reasoning" }, t.reasoning)) : null,
        t.text ? h("pre", { class: "model-text" }, t.text) : null,
        t.wordsDropped ? h("p", { class: "muted" }, "(its text is not kept: the run's bound was reached)") : null,
      ]),
    );
    for (const c of t.toolCalls ?? []) rows.push(toolRow(run, c, span, subagents));
  }
  const failed = failedStepWords(run);
  return h(
    "div",
    { class: "timeline-box" },
    run.status === "failed" && failed ? h("p", { id: "run-failed-step", class: "status-failed failed-step" }, failed) : null,
    turns.length
      ? h("ol", { class: "timeline", id: "run-timeline", "aria-label": "Turns and tool calls on one time axis" }, ...rows)
      : h("p", { class: "empty" }, "no step recorded"),
    run.detail?.dropped
      ? h(
          "p",
          { class: "muted" },
          `not kept past the bounds: ${run.detail.dropped.turns} turns, ${run.detail.dropped.toolCalls} tool calls`,
        )
      : null,
    h("details", { id: "raw-record" }, h("summary", {}, "Raw record"), h("pre", {}, JSON.stringify(run, null, 2))),
  );
}

function toolRow(run: any, c: any, span: { t0: number; total: number }, subagents: any[] | undefined): HTMLElement {
  const start = Date.parse(c.startedAt);
  const inFlight = c.durationMs === undefined && run.status === "running";
  const dur = c.durationMs ?? (inFlight ? Date.now() - start : undefined);
  const where = c.server ? `${c.server}/${c.tool}` : c.tool;
  const live = inFlight && run.tool?.toolCallId === c.toolCallId ? run.tool : undefined;
  const failedHere = run.detail?.failure?.toolCallId === c.toolCallId;
  const cls = c.error || failedHere ? "tool failed" : inFlight ? "tool live" : "tool";
  const sub = c.subagent ? subagents?.find((s) => s.id === c.subagent) : undefined;
  return step(`tool-${c.toolCallId}`, cls, `↳ ${where}`, bar(cls, start, dur, span, `${where}: ${duration(dur ?? 0)}`), [
    h(
      "p",
      { class: "muted" },
      [dur !== undefined ? duration(dur) : "", inFlight ? "running…" : "", c.resultSize !== undefined ? `${c.resultSize} chars` : ""]
        .filter(Boolean)
        .join(" · "),
    ),
    live && live.progress !== undefined
      ? h(
          "p",
          { class: "progress" },
          `progress ${live.progress}${live.total !== undefined ? ` of ${live.total}` : ""}${live.message ? `: ${live.message}` : ""}`,
        )
      : null,
    c.arguments ? h("pre", { class: "args" }, c.arguments) : null,
    c.error ? h("pre", { class: "status-failed" }, c.error) : c.resultExcerpt ? h("pre", { class: "result" }, c.resultExcerpt) : null,
    c.subagent
      ? h(
          "div",
          { class: "subagent", "data-subagent": c.subagent },
          `subagent ${c.subagent}`,
          sub
            ? ` · ${text(sub.status)} · ${sub.turns ?? 0} turns · ${sub.toolCalls ?? 0} tool calls · ${sub.usage?.totalTokens ?? 0} tokens`
            : "",
        )
      : null,
  ]);
}
