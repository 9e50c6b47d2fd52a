/// <reference lib="dom" />
/**
 * What the agent waits on: the Questions page (every pending tool approval and operator elicitation the
 * signed-in principal may see, then the decisions of the last hour) and the same cards on a run's page for
 * its own. Operators get the actions — approve, deny with a reason, always for this run; an elicitation's
 * answer as a form drawn from its requested schema, or decline — everyone else sees the questions only.
 *
 * The page is redrawn from every snapshot; a card is kept (by question and state) across redraws, so a reason
 * or an answer half typed survives the live updates around it.
 */
import { duration, h, when } from "./dom.ts";
import type { PageContext } from "./pages.ts";
import { runHref } from "./run-parts.ts";

const cards = new Map<string, HTMLElement>();
let seen = new Set<string>();

/** The card for `key`, kept across redraws (built once). */
function kept(key: string, build: () => HTMLElement): HTMLElement {
  seen.add(key);
  let el = cards.get(key);
  if (!el) cards.set(key, (el = build()));
  return el;
}

/** Forget the cards not drawn since the last call (their questions were answered or went away). */
function prune(): void {
  for (const key of cards.keys()) if (!seen.has(key)) cards.delete(key);
  seen = new Set();
}

/** How many questions wait (the navigation's count). */
export function pendingCount(snap: any): number {
  const q = snap?.questions;
  return (q?.approvals ?? []).filter((a: any) => a.state === "pending").length + (q?.elicitations ?? []).length;
}

/** The Questions page: pending first, then the decisions of the last hour. */
export function questionsPage(c: PageContext): { page: HTMLElement; update: (c: PageContext) => void } {
  const body = h("div", { id: "questions-data" });
  const update = (cx: PageContext) => {
    const q = cx.snap.questions ?? { approvals: [], elicitations: [] };
    const pending = q.approvals.filter((a: any) => a.state === "pending");
    const decided = q.approvals.filter((a: any) => a.state === "decided").reverse();
    body.replaceChildren(
      q.approvalsUnavailable ? h("p", { class: "status-failed" }, `approvals cannot be read now: ${q.approvalsUnavailable}`) : "",
      h("h2", {}, `Tool calls waiting for approval (${pending.length})`),
      list(
        pending.map((a: any) => approvalCard(cx, a)),
        q.approvalsServed ? "no tool call waits for a decision" : "no approval rule asks here",
        "pending-approvals",
      ),
      h("h2", {}, `Questions from MCP servers (${q.elicitations.length})`),
      list(
        q.elicitations.map((e: any) => elicitationCard(cx, e)),
        "no server waits for an operator's answer",
        "pending-elicitations",
      ),
      h("h2", {}, "Decided in the last hour"),
      list(
        decided.map((a: any) => approvalCard(cx, a)),
        "no decision in the last hour",
        "decided-approvals",
      ),
    );
    prune();
  };
  update(c);
  const page = h(
    "section",
    { "aria-labelledby": "questions-h" },
    h("h1", { id: "questions-h" }, "Questions"),
    h(
      "p",
      { class: "muted" },
      c.operator ? "What the agent waits on. Answer here; the run goes on." : "What your runs wait on; an operator answers them.",
    ),
    body,
  );
  return { page, update };
}

/**
 * A run's questions: those pending (with the actions), then its decisions — from the run's own record (every
 * channel's decision, kept with the run), else from the desk's last hour.
 */
export function runQuestions(c: PageContext, run: any): HTMLElement | null {
  const q = c.snap.questions ?? { approvals: [], elicitations: [] };
  const mine = (x: any) => x.run?.principal === run.principal && x.run?.runId === run.runId;
  const approvals = q.approvals.filter(mine);
  const pending = [
    ...approvals.filter((a: any) => a.state === "pending").map((a: any) => approvalCard(c, a)),
    ...q.elicitations.filter(mine).map((e: any) => elicitationCard(c, e)),
  ];
  const recorded: any[] = (run.approvals ?? []).filter((a: any) => a.decision);
  const decided = recorded.length
    ? recorded.map(recordedDecision)
    : approvals.filter((a: any) => a.state === "decided").map((a: any) => approvalCard(c, a));
  prune();
  if (pending.length === 0 && decided.length === 0) return null;
  return h(
    "div",
    { id: "run-questions" },
    pending.length ? h("h2", {}, `Waiting on (${pending.length})`) : null,
    pending.length ? list(pending, "", "run-pending") : null,
    decided.length ? h("h2", {}, "Decisions") : null,
    decided.length ? list(decided, "", "run-decisions") : null,
  );
}

/** A decision as the run's record keeps it: the tool, the rule, and who decided what, when and why. */
function recordedDecision(a: any): HTMLElement {
  return h(
    "article",
    { class: "question decided", "data-question": a.requestId, "data-kind": "approval", "aria-label": `Approval ${a.requestId}` },
    h("h3", {}, "Tool call ", h("code", {}, a.tool)),
    h(
      "p",
      { class: "muted" },
      `asked by ${a.rule} · ${when(a.requestedAt)}${a.waitedMs !== undefined ? ` · waited ${duration(a.waitedMs)}` : ""}`,
    ),
    decisionLine({ decision: a.decision, by: a.by, at: a.decidedAt, reason: a.reason }),
  );
}

function list(items: HTMLElement[], empty: string, id: string): HTMLElement {
  return items.length ? h("div", { class: "questions", id }, ...items) : h("p", { class: "empty", id }, empty);
}

/** A tool call's question: what, where, why asked, its run; the actions while pending, the decision once given. */
function approvalCard(c: PageContext, a: any): HTMLElement {
  return kept(`${a.id}\n${a.state}\n${c.operator}`, () => {
    const el = h(
      "article",
      { class: `question ${a.state}`, "data-question": a.id, "data-kind": "approval", "aria-label": `Approval ${a.id}` },
      h("h3", {}, "Tool call ", h("code", {}, a.server ? `${a.server}/${a.tool}` : a.tool)),
      h(
        "p",
        { class: "muted" },
        `asked by ${a.rule} · ${when(a.requestedAt)}`,
        a.expiresAt ? ` · expires ${when(a.expiresAt)}` : "",
        ` · from ${a.origin}`,
      ),
      h("p", {}, "Run ", h("a", { href: runHref(a.run.principal, a.run.runId), class: "run-link" }, a.run.runId), ` (${a.run.principal})`),
      h("pre", { class: "args" }, a.arguments),
    );
    if (a.state === "decided" && a.decision) el.append(decisionLine(a.decision));
    else if (c.operator) el.append(decideForm(c, a));
    return el;
  });
}

const WORDS: Record<string, string> = { approve: "Approved", deny: "Denied", always: "Approved for the rest of the run" };

function decisionLine(d: any): HTMLElement {
  return h(
    "p",
    { class: `decision decision-${d.decision}` },
    h("strong", {}, WORDS[d.decision] ?? d.decision),
    ` by ${d.by} · ${when(d.at)}`,
    d.reason ? ` · “${d.reason}”` : "",
  );
}

function decideForm(c: PageContext, a: any): HTMLElement {
  const reason = h("input", { type: "text", name: "reason", id: `reason-${a.id}`, autocomplete: "off", maxlength: "1000" });
  const send = (decision: string) => (e: Event) => {
    const form = (e.currentTarget as HTMLElement).closest("form")!;
    for (const b of form.querySelectorAll("button")) b.disabled = true;
    c.act(decision, { id: a.id, digest: a.digest, ...(reason.value.trim() ? { reason: reason.value.trim() } : {}) }).catch(() => {
      for (const b of form.querySelectorAll("button")) b.disabled = false;
    });
  };
  return h(
    "form",
    { class: "actions decide", onsubmit: (e: Event) => e.preventDefault() },
    h("label", { class: "wide" }, "Reason (the model reads it on a denial)", reason),
    h("button", { type: "button", class: "approve", onclick: send("approve") }, "Approve"),
    h("button", { type: "button", class: "danger", onclick: send("deny") }, "Deny"),
    h("button", { type: "button", onclick: send("always") }, "Always for this run"),
  );
}

/** An MCP server's question to an operator: its words, its run, and the answer form drawn from its schema. */
function elicitationCard(c: PageContext, e: any): HTMLElement {
  return kept(`${e.run.principal}\n${e.id}\n${e.requestedAt}\n${c.operator}`, () => {
    const el = h(
      "article",
      { class: "question pending", "data-question": e.id, "data-kind": "elicitation", "aria-label": `Question of task ${e.id}` },
      h("h3", {}, "Question from ", h("code", {}, e.server ?? "an MCP server")),
      h("p", { class: "question-text" }, e.message),
      h(
        "p",
        { class: "muted" },
        `asked ${when(e.requestedAt)} · `,
        "run ",
        h("a", { href: runHref(e.run.principal, e.run.runId) }, e.run.runId),
      ),
    );
    if (c.operator) el.append(answerForm(c, e));
    return el;
  });
}

function answerForm(c: PageContext, e: any): HTMLElement {
  const props: Record<string, any> = e.requestedSchema?.properties ?? {};
  const required = new Set<string>(e.requestedSchema?.required ?? []);
  const fields: Field[] = Object.entries(props).map(([name, p]) => field(`${e.id}-${name}`, name, p, required.has(name)));
  const form = h("form", { class: "actions answer" }, ...fields.map((f) => f.label));
  const send = (action: string, content?: Record<string, unknown>) => {
    for (const b of form.querySelectorAll("button")) b.disabled = true;
    c.act("answer", { taskId: e.id, principal: e.run.principal, action, ...(content ? { content } : {}) }).catch(() => {
      for (const b of form.querySelectorAll("button")) b.disabled = false;
    });
  };
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const content: Record<string, unknown> = {};
    for (const f of fields) {
      const v = f.value();
      if (v !== undefined) content[f.name] = v;
    }
    send("accept", content);
  });
  form.append(
    h("button", { type: "submit", class: "approve" }, "Send answer"),
    h("button", { type: "button", onclick: () => send("decline") }, "Decline"),
    h("button", { type: "button", class: "danger", onclick: () => send("cancel") }, "Cancel"),
  );
  return form;
}

type Field = { name: string; label: HTMLElement; value: () => unknown };

/** The values a field may take, with their titles (`enum`, `oneOf` of `const`s; for an array, its items'). */
function choicesOf(p: any): { value: string; title: string }[] | undefined {
  const titles: unknown[] | undefined = p?.enumNames;
  if (Array.isArray(p?.enum)) return p.enum.map((v: unknown, i: number) => ({ value: String(v), title: String(titles?.[i] ?? v) }));
  const of = p?.oneOf ?? p?.anyOf;
  if (Array.isArray(of) && of.every((o: any) => o && "const" in o))
    return of.map((o: any) => ({ value: String(o.const), title: String(o.title ?? o.const) }));
  return undefined;
}

/** One field of a requested schema: text (with its format), number, integer, boolean, one or several of a list. */
function field(id: string, name: string, p: any, required: boolean): Field {
  const title = `${p.title ?? name}${required ? " *" : ""}`;
  const labelled = (control: HTMLElement) =>
    h("label", {}, title, p.description ? h("span", { class: "muted" }, p.description) : null, control);
  const many = p.type === "array" ? choicesOf(p.items) : undefined;
  const one = many ? undefined : choicesOf(p);
  const defaults = new Set((Array.isArray(p.default) ? p.default : [p.default]).map(String));
  if (many || one) {
    const options = (many ?? one)!.map((c) =>
      h("option", { value: c.value, ...(defaults.has(c.value) ? { selected: true } : {}) }, c.title),
    );
    const select = h(
      "select",
      { id, name, required, ...(many ? { multiple: true } : {}) },
      ...(many ? [] : [h("option", { value: "" }, "—")]),
      ...options,
    );
    const value = () => (many ? [...select.selectedOptions].map((o) => o.value) : select.value === "" ? undefined : select.value);
    return { name, label: labelled(select), value };
  }
  if (p.type === "boolean") {
    const box = h("input", { type: "checkbox", id, name, ...(p.default === true ? { checked: true } : {}) });
    return { name, label: labelled(box), value: () => box.checked };
  }
  const numeric = p.type === "number" || p.type === "integer";
  const kind = numeric ? "number" : p.format === "email" ? "email" : p.format === "date" ? "date" : p.format === "uri" ? "url" : "text";
  const input = h("input", {
    type: kind,
    id,
    name,
    required,
    autocomplete: "off",
    step: p.type === "integer" ? "1" : numeric ? "any" : undefined,
    min: p.minimum !== undefined ? String(p.minimum) : undefined,
    max: p.maximum !== undefined ? String(p.maximum) : undefined,
    value: p.default !== undefined ? String(p.default) : undefined,
  });
  return { name, label: labelled(input), value: () => (input.value === "" ? undefined : numeric ? Number(input.value) : input.value) };
}
