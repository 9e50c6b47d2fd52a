/// <reference lib="dom" />
/**
 * The operator's "Start a run" form (Runs page): the instruction, an optional run id and conversation (the
 * operator's own, continued or created) and the budgets, sent to
 * `POST /console/api/start`; once started, the page moves to the run's timeline to watch it. Shown to operators
 * only (the server refuses anyone else with 403 either way).
 */
import { h } from "./dom.ts";
import { act } from "./live.ts";

const number = (name: string, label: string, step = "1") =>
  h("label", {}, label, h("input", { type: "number", name, min: "0", step, inputmode: "decimal", id: `start-${name}` }));

/** The form, folded until opened. */
export function startRunForm(): HTMLElement {
  const error = h("p", { class: "status-failed", id: "start-error", hidden: true });
  const form = h(
    "form",
    {
      id: "start-run",
      class: "start-run",
      onsubmit: (e: Event) => {
        e.preventDefault();
        const data = new FormData(form);
        const params: Record<string, unknown> = { instruction: String(data.get("instruction") ?? "") };
        const runId = String(data.get("runId") ?? "").trim();
        if (runId) params.runId = runId;
        const conversation = String(data.get("conversation") ?? "").trim();
        if (conversation) params.conversation = conversation;
        for (const k of ["maxTurns", "maxTokens", "maxCostUsd"]) if (data.get(k)) params[k] = Number(data.get(k));
        if (data.get("deadlineS")) params.deadlineMs = Math.round(Number(data.get("deadlineS")) * 1000);
        const button = form.querySelector("button")!;
        button.disabled = true;
        act("start", params)
          .then((r: any) => {
            location.hash = `#/run/${encodeURIComponent(r.principal)}/${encodeURIComponent(r.runId)}`;
          })
          .catch((err: Error) => {
            error.textContent = `start failed: ${err.message}`;
            error.hidden = false;
            button.disabled = false;
          });
      },
    },
    h(
      "label",
      { class: "wide" },
      "Instruction",
      h("textarea", { name: "instruction", required: true, rows: "3", id: "start-instruction" }),
    ),
    h("label", {}, "Run id (optional)", h("input", { type: "text", name: "runId", id: "start-runId", autocomplete: "off" })),
    h(
      "label",
      {},
      "Conversation (optional)",
      h("input", { type: "text", name: "conversation", id: "start-conversation", autocomplete: "off", placeholder: "continue or create" }),
    ),
    number("maxTurns", "Max turns"),
    number("maxTokens", "Max tokens"),
    number("deadlineS", "Deadline (s)"),
    number("maxCostUsd", "Max cost ($)", "0.01"),
    h("button", { type: "submit" }, "Start run"),
    error,
  );
  return h("details", { class: "start-box" }, h("summary", {}, "Start a run"), form);
}
