/// <reference lib="dom" />
/**
 * The Runs page (filters kept while the data under them updates; older pages by the listing's cursor) and a run's detail.
 */
import { card, duration, h, kv, status, when } from "./dom.ts";
import { get } from "./live.ts";
import type { PageContext } from "./pages.ts";
import { usageTable, triggerOf, costText, runTable } from "./run-parts.ts";
import { runTimeline } from "./run-timeline.ts";
import { chartFilter } from "./charts.ts";
import { startRunForm } from "./start-run.ts";
import { runQuestions } from "./questions.ts";
import { runConversation } from "./run-conversation.ts";

/** The filters a chart's link sets (besides status): kept out of the form, shown above the table. */
export const CHART_KEYS = ["hour", "day", "server", "minMs", "conversation"] as const;

/** Runs: the filter form (kept while the data below it updates), the filtered table, and older pages on demand. */
export function runsPage(
  c: PageContext,
  filters: Record<string, string>,
  onFilter: () => void,
): { page: HTMLElement; update: (c: PageContext) => void } {
  const data = h("div", { id: "runs-data" });
  const olderBox = h("div", { id: "older-runs" });
  // Older pages: fetched with the filters of the moment; a change of filter starts them over.
  let older: any[] = [];
  let olderCursor: string | undefined;
  let olderFrom: string | undefined;
  const resetOlder = () => {
    older = [];
    olderCursor = undefined;
    olderFrom = undefined;
  };
  const input = (name: string, label: string, el: HTMLInputElement | HTMLSelectElement) => {
    el.name = name;
    el.value = filters[name] ?? "";
    el.addEventListener("input", () => {
      filters[name] = el.value;
      resetOlder();
      onFilter();
    });
    return h("label", {}, label, el);
  };
  const options = (values: string[]) => [h("option", { value: "" }, "any"), ...values.map((v) => h("option", { value: v }, v))];
  const triggers = [...new Set((c.snap.runs as any[]).map(triggerOf).filter(Boolean))];
  const principals = [...new Set((c.snap.runs as any[]).map((r) => r.principal))];
  const form = h(
    "form",
    { class: "filters", role: "search", "aria-label": "Filter runs", onsubmit: (e: Event) => e.preventDefault() },
    input("status", "Status", h("select", {}, ...options(["running", "waiting", "succeeded", "failed"]))),
    input("trigger", "Trigger", h("select", {}, ...options(triggers))),
    c.operator ? input("principal", "Principal", h("select", {}, ...options(principals))) : null,
    input("text", "Text", h("input", { type: "search", placeholder: "run id, instruction, answer" })),
  );
  let latest = c;
  const loadOlder = async (button: HTMLButtonElement) => {
    const cursor = olderCursor ?? olderFrom;
    if (!cursor) return;
    button.disabled = true;
    const q = new URLSearchParams({ cursor, limit: "100" });
    if (filters.status) q.set("status", filters.status);
    if (filters.trigger) q.set("trigger", filters.trigger);
    if (filters.principal) q.set("principal", filters.principal);
    if (filters.text) q.set("q", filters.text);
    try {
      const page = await get(`runs?${q}`);
      older = [...older, ...page.runs];
      olderCursor = page.nextCursor;
      if (!olderCursor) olderFrom = undefined;
    } catch (e) {
      olderBox.append(h("p", { class: "status-failed" }, `older runs: ${(e as Error).message}`));
      return;
    }
    drawOlder();
  };
  const drawOlder = () => {
    const more = olderCursor ?? (older.length === 0 ? olderFrom : undefined);
    const shown = new Set((latest.snap.runs as any[]).map((r) => `${r.principal}\n${r.runId}\n${r.startedAt}`));
    const rows = older.filter((r) => !shown.has(`${r.principal}\n${r.runId}\n${r.startedAt}`));
    const shownOlder = older.length ? [h("h2", {}, `Older runs (${rows.length})`), runTable(rows, "no older run matches")] : [];
    olderBox.replaceChildren(
      ...shownOlder,
      more
        ? h(
            "button",
            { type: "button", id: "older-runs-button", onclick: (e: Event) => void loadOlder(e.currentTarget as HTMLButtonElement) },
            older.length ? "More older runs" : "Older runs",
          )
        : h("p", { class: "muted" }, older.length ? "no older run" : ""),
    );
  };
  const update = (cx: PageContext) => {
    latest = cx;
    const q = (filters.text ?? "").toLowerCase();
    const fromChart = chartFilter(filters, cx.snap);
    const runs = (cx.snap.runs as any[]).filter(
      (r) =>
        fromChart(r) &&
        (!filters.status || r.status === filters.status) &&
        (!filters.trigger || triggerOf(r) === filters.trigger) &&
        (!filters.principal || r.principal === filters.principal) &&
        (!q || JSON.stringify([r.runId, r.instruction, r.answer, r.error?.message, r.error?.code]).toLowerCase().includes(q)),
    );
    const charted = CHART_KEYS.filter((k) => filters[k]).map((k) => `${k} ${filters[k]}`);
    data.replaceChildren(
      charted.length
        ? h("p", { id: "chart-filter" }, `From a chart: ${charted.join(", ")} · `, h("a", { href: "#/runs" }, "all runs"))
        : "",
      h(
        "p",
        { class: "muted" },
        `${runs.length} of ${cx.snap.runsCursor ? "the newest " : ""}${cx.snap.runs.length} run${cx.snap.runs.length === 1 ? "" : "s"}, newest first`,
      ),
      runTable(runs, "no run matches"),
    );
    // The newest page's end moves as runs start: older pages follow from where the snapshot ends now.
    if (older.length === 0) olderFrom = cx.snap.runsCursor;
    drawOlder();
  };
  update(c);
  const start = c.operator ? startRunForm() : null;
  return { page: h("section", { "aria-labelledby": "runs-h" }, h("h1", { id: "runs-h" }, "Runs"), start, form, data, olderBox), update };
}

/** A run's detail: what it was asked, how it went, its answer or failure, and every other field. */
export function runDetail(c: PageContext, run: any): HTMLElement {
  const ended = run.endedAt ? Date.parse(run.endedAt) : Date.now();
  const section = h(
    "section",
    { "aria-labelledby": "run-h" },
    h("h1", { id: "run-h" }, "Run ", h("code", {}, run.runId)),
    h("p", {}, h("a", { href: "#/runs" }, "← all runs")),
    h(
      "div",
      { class: "cards" },
      card("Status", status(run.status)),
      card("Principal", run.principal),
      card("Trigger", triggerOf(run) || "—"),
      card("Started", when(run.startedAt)),
      card("Duration", duration(ended - Date.parse(run.startedAt))),
      card("Turns", run.turns),
      card("Tool calls", run.toolCalls),
      card(
        "Cost",
        h(
          "span",
          { id: "run-cost", class: run.detail?.costUsd === undefined ? "muted" : "" },
          costText(run.detail?.costUsd, run.status === "running"),
        ),
      ),
      run.replica ? card("Replica", run.replica) : null,
      run.detail?.traceId
        ? card(
            "Trace",
            run.traceLink
              ? h(
                  "a",
                  { href: run.traceLink, id: "trace-link", class: "mono", target: "_blank", rel: "noopener noreferrer" },
                  run.detail.traceId,
                )
              : h("code", { id: "trace-id", class: "mono" }, run.detail.traceId),
          )
        : null,
    ),
    h("h2", {}, "Instruction"),
    h("pre", { id: "run-instruction" }, run.instruction),
    runConversation(run),
  );
  const timeline = [h("h2", {}, "Timeline"), runTimeline(run, c.snap.subagents)];
  // What the run waits on, with the same actions as the Questions page, and its decisions.
  const questions = runQuestions(c, run);
  if (questions) section.append(questions);
  if (c.operator && run.status === "running")
    section.append(
      h(
        "div",
        { class: "actions" },
        h(
          "button",
          {
            type: "button",
            class: "danger",
            id: "cancel-run",
            onclick: () => void c.act("cancel", { id: run.runId, principal: run.principal }, `Cancel run ${run.runId}?`).catch(() => {}),
          },
          "Cancel run",
        ),
      ),
    );
  if (run.tool) section.append(h("h2", {}, "Tool in flight"), kv(run.tool));
  if (run.result)
    section.append(
      h("h2", {}, "Answer"),
      h("pre", { id: "run-answer" }, run.result.text ?? JSON.stringify(run.result.output, null, 2)),
      kv(run.result, ["text"]),
    );
  if (run.error)
    section.append(
      h("h2", {}, "Failure"),
      h("pre", { id: "run-error", class: "status-failed" }, `${run.error.code}: ${run.error.message}`),
      kv(run.error, ["code", "message"]),
    );
  section.append(...timeline, h("h2", {}, "Usage"), usageTable(run.usage, "Run usage"));
  const known = [
    "runId",
    "principal",
    "status",
    "instruction",
    "startedAt",
    "endedAt",
    "turns",
    "toolCalls",
    "usage",
    "tool",
    "result",
    "error",
    "trigger",
    "replica",
    "traceLink",
    "conversation",
    "conversationId",
    // The questions' section draws them.
    "approvals",
    // The timeline draws it; the raw record is one click away there.
    "detail",
  ];
  if (Object.keys(run).some((k) => !known.includes(k))) section.append(h("h2", {}, "More"), kv(run, known));
  return section;
}
