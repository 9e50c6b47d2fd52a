/// <reference lib="dom" />
/**
 * The console's pages, each drawn from the latest snapshot: Overview, Runs (with filters), a run's detail,
 * Triggers, Subagents and tasks, Servers. A page shows the fields it knows and every other field of a
 * record as keys and values, so richer records appear as they are.
 */
import { card, duration, h, kv, status, table, text, when } from "./dom.ts";
import { get } from "./live.ts";

/** What a page draws with. */
export interface PageContext {
  snap: any;
  operator: boolean;
  /** Run an operator action, report its outcome in the banner, and return its result. */
  act(action: string, params?: Record<string, unknown>, confirmText?: string): Promise<unknown>;
}

const USAGE_KEYS: [string, string][] = [
  ["inputTokens", "input"],
  ["outputTokens", "output"],
  ["cacheReadTokens", "cache read"],
  ["cacheWriteTokens", "cache write"],
  ["reasoningTokens", "reasoning"],
  ["totalTokens", "total"],
];

/** A usage record as a one-row table (input, output, cache read/write, reasoning, total, and any other kind). */
export function usageTable(usage: Record<string, unknown> | undefined, label: string): HTMLElement {
  const u = usage ?? {};
  const extra = Object.keys(u).filter((k) => !USAGE_KEYS.some(([key]) => key === k));
  return table(
    [...USAGE_KEYS.map(([, name]) => name), ...extra],
    [[...USAGE_KEYS.map(([k]) => text(u[k] ?? 0)), ...extra.map((k) => text(u[k]))]],
    "no usage",
    label,
  );
}

/** A run's link to its detail page. */
export const runHref = (principal: string, runId: string) => `#/run/${encodeURIComponent(principal)}/${encodeURIComponent(runId)}`;

/** The trigger a run came from, as text (the record's `trigger` field, whatever its shape), or "". */
export function triggerOf(run: any): string {
  const t = run.trigger;
  if (t === undefined || t === null) return "";
  if (typeof t === "string") return t;
  return String(t.id ?? t.kind ?? JSON.stringify(t));
}

/** US dollars: cents, or four decimals under a cent. */
export const money = (usd: number) => `$${usd !== 0 && Math.abs(usd) < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;

/** What a run or a sum cost, or the label saying only tokens are known. */
const costText = (usd: number | undefined, running = false) =>
  usd !== undefined ? money(usd) : running ? "when it ends" : "tokens only (no price)";

/** The spend of `runs` with a price, how many had none; undefined when none had one. */
function sumCost(runs: any[]): { usd: number; unpriced: number } | undefined {
  const priced = runs.filter((r) => typeof r.costUsd === "number");
  if (priced.length === 0) return undefined;
  return { usd: priced.reduce((n, r) => n + r.costUsd, 0), unpriced: runs.filter((r) => r.status !== "running").length - priced.length };
}

/** A spend card: dollars (and how many runs had no price), or tokens only, said so. */
function spend(label: string, cost: { usd: number; unpriced: number } | undefined, id: string): HTMLElement {
  return card(
    label,
    cost
      ? h(
          "span",
          { id },
          money(cost.usd),
          cost.unpriced > 0 ? h("span", { class: "muted" }, ` (${cost.unpriced} runs without a price)`) : null,
        )
      : h("span", { id, class: "muted", title: "set model.prices to count spend in money" }, "tokens only: no model price configured"),
  );
}

function sumUsage(runs: any[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.usage ?? {})) if (typeof v === "number") out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Overview: health, readiness, state, version, uptime, runs in flight, failures, usage. */
export function overview(c: PageContext): HTMLElement {
  const o = c.snap.overview;
  const st = o.status;
  const runs: any[] = c.snap.runs;
  const today = new Date().toDateString();
  const todays = runs.filter((r) => new Date(r.startedAt).toDateString() === today);
  const failures = runs.filter((r) => r.status === "failed").slice(0, 5);
  const running = runs.filter((r) => r.status === "running");
  const section = h(
    "section",
    { "aria-labelledby": "overview-h" },
    h("h1", { id: "overview-h" }, "Overview"),
    h(
      "div",
      { class: "cards" },
      card("Health", status(o.health)),
      card("Ready", o.ready.ok ? status("ok") : h("span", { class: "status status-failed" }, o.ready.reason)),
      card("State", status(o.state)),
      card("Version", text(o.version)),
      card("Uptime", h("span", { "data-uptime": o.startedAt }, duration(Date.now() - Date.parse(o.startedAt)))),
      card("Runs in flight", st.running.length),
      card("Runs started", st.runsStarted),
      card("Succeeded", st.runsSucceeded),
      card("Failed", st.runsFailed),
      spend("Spend since start", st.costUsd !== undefined ? { usd: st.costUsd, unpriced: 0 } : undefined, "spend-start"),
      spend("Spend today", sumCost(todays), "spend-today"),
    ),
    h("h2", {}, "Usage since start"),
    usageTable(st.usage, "Usage since start"),
    h("h2", {}, `Today (${todays.length} held run${todays.length === 1 ? "" : "s"})`),
    usageTable(sumUsage(todays), "Usage today"),
    o.sampling !== undefined ? h("h2", {}, "Sampling by server") : null,
    o.sampling !== undefined ? kv(o.sampling) : null,
    h("h2", {}, "In flight"),
    runTable(running, "nothing is running"),
    h("h2", {}, "Recent failures"),
    runTable(failures, "no failure among the held runs"),
  );
  if (c.operator)
    section.append(
      h("h2", {}, "Operator actions"),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", onclick: () => void c.act("reload").catch(() => {}) }, "Reload configuration"),
        h(
          "button",
          {
            type: "button",
            class: "danger",
            onclick: () => void c.act("drain", {}, "Drain: stop taking new work and let runs in flight finish?").catch(() => {}),
          },
          "Drain",
        ),
      ),
    );
  if (o.principals)
    section.append(
      h("h2", {}, "Principals"),
      table(
        ["principal", "running", "runs started"],
        Object.entries(o.principals).map(([p, v]: [string, any]) => [p, v.running.length, v.runsStarted]),
        "no principal has run anything",
        "Principals",
      ),
    );
  return section;
}

/** A table of runs (newest first), each linking to its detail. */
export function runTable(runs: any[], empty: string): HTMLElement {
  return table(
    ["started", "status", "run", "principal", "trigger", "instruction", "turns", "tools", "tokens", "cost"],
    runs.map((r) => [
      when(r.startedAt),
      status(r.status),
      h("a", { href: runHref(r.principal, r.runId) }, r.runId),
      r.principal,
      triggerOf(r) || "—",
      h("span", { class: "clip", title: r.instruction }, r.instruction),
      r.turns,
      r.toolCalls,
      text(r.usage?.totalTokens ?? 0),
      h("span", { class: r.costUsd === undefined ? "muted" : "" }, costText(r.costUsd, r.status === "running")),
    ]),
    empty,
    "Runs",
  );
}

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
    input("status", "Status", h("select", {}, ...options(["running", "succeeded", "failed"]))),
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
    const runs = (cx.snap.runs as any[]).filter(
      (r) =>
        (!filters.status || r.status === filters.status) &&
        (!filters.trigger || triggerOf(r) === filters.trigger) &&
        (!filters.principal || r.principal === filters.principal) &&
        (!q || JSON.stringify([r.runId, r.instruction, r.answer, r.error?.message, r.error?.code]).toLowerCase().includes(q)),
    );
    data.replaceChildren(
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
  return { page: h("section", { "aria-labelledby": "runs-h" }, h("h1", { id: "runs-h" }, "Runs"), form, data, olderBox), update };
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
  );
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
  section.append(h("h2", {}, "Usage"), usageTable(run.usage, "Run usage"));
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
  ];
  if (Object.keys(run).some((k) => !known.includes(k))) section.append(h("h2", {}, "More"), kv(run, known));
  return section;
}

/** Triggers: kind, schedule or subscription, next and last firing, state and reason; pause and resume. */
export function triggersPage(c: PageContext): HTMLElement {
  const triggers: any[] = c.snap.triggers ?? [];
  const section = h("section", { "aria-labelledby": "triggers-h" }, h("h1", { id: "triggers-h" }, "Triggers"));
  if (c.operator && triggers.length)
    section.append(
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", onclick: () => void c.act("pause").catch(() => {}) }, "Pause all"),
        h("button", { type: "button", onclick: () => void c.act("resume").catch(() => {}) }, "Resume all"),
      ),
    );
  const schedule = (t: any) =>
    t.cron
      ? `cron ${t.cron}${t.tz ? ` (${t.tz})` : ""}`
      : t.everyMs
        ? `every ${duration(t.everyMs)}`
        : t.uri
          ? `${t.server ?? ""} ${t.uri}`
          : "—";
  section.append(
    table(
      [
        "trigger",
        "kind",
        "schedule or subscription",
        "state",
        "next firing",
        "last firing",
        "runs",
        "failures",
        ...(c.operator ? [""] : []),
      ],
      triggers.map((t) => [
        t.id,
        t.kind,
        schedule(t),
        h("span", {}, status(t.state), t.reason ? h("span", { class: "muted" }, ` ${t.reason}`) : null),
        h("span", { class: "next-fire" }, when(t.nextFire)),
        t.lastRunId ? h("span", {}, when(t.lastRunEndedAt), " ", status(t.lastOutcome)) : "—",
        t.runs,
        t.failures,
        ...(c.operator
          ? [
              t.state === "paused"
                ? h(
                    "button",
                    { type: "button", onclick: () => void c.act("resume", { triggers: [t.id] }).catch(() => {}) },
                    `Resume ${t.id}`,
                  )
                : h(
                    "button",
                    { type: "button", onclick: () => void c.act("pause", { triggers: [t.id] }).catch(() => {}) },
                    `Pause ${t.id}`,
                  ),
            ]
          : []),
      ]),
      c.snap.triggers ? "no trigger is configured" : "the agent's triggers are for operators and the local user",
      "Triggers",
    ),
  );
  const known = [
    "id",
    "kind",
    "cron",
    "tz",
    "everyMs",
    "server",
    "uri",
    "state",
    "reason",
    "nextFire",
    "lastRunId",
    "lastRunEndedAt",
    "lastOutcome",
    "runs",
    "failures",
  ];
  for (const t of triggers) if (Object.keys(t).some((k) => !known.includes(k))) section.append(h("h2", {}, t.id), kv(t, known));
  return section;
}

/** Subagents and tasks: the subagent handles, the served MCP tasks, and the unfinished A2A tasks (cancel for operators). */
export function subagentsPage(c: PageContext): HTMLElement {
  const subs: any[] = c.snap.subagents ?? [];
  const tasks: any[] = c.snap.tasks ?? [];
  return h(
    "section",
    { "aria-labelledby": "subagents-h" },
    h("h1", { id: "subagents-h" }, "Subagents and tasks"),
    h("h2", {}, "Subagents"),
    table(
      ["handle", "status", "spawned by run", "attempts", "turns", "tools", "tokens", "age"],
      subs.map((s) => [
        s.id,
        status(s.status),
        text(s.owner),
        s.attempts,
        s.turns,
        s.toolCalls,
        text(s.usage?.totalTokens ?? 0),
        duration(Date.now() - Date.parse(s.createdAt)),
      ]),
      c.snap.subagents ? "no subagent" : "subagents are for operators and the local user",
      "Subagents",
    ),
    h("h2", {}, "MCP tasks"),
    table(
      ["task", "status", "owner", "age", "message"],
      ((c.snap.mcpTasks ?? []) as any[]).map((t) => [
        t.taskId,
        status(t.status),
        t.owner,
        duration(Date.now() - Date.parse(t.createdAt)),
        text(t.statusMessage),
      ]),
      "no served MCP task",
      "MCP tasks",
    ),
    h("h2", {}, "A2A tasks"),
    table(
      ["task", "state", "owner", "context", ...(c.operator ? [""] : [])],
      tasks.map((t) => [
        t.id,
        status(
          String(t.state)
            .replace(/^TASK_STATE_/, "")
            .toLowerCase(),
        ),
        t.owner,
        t.contextId,
        ...(c.operator
          ? [
              h(
                "button",
                {
                  type: "button",
                  class: "danger",
                  onclick: () => void c.act("cancel", { id: t.id, principal: t.owner }, `Cancel task ${t.id}?`).catch(() => {}),
                },
                "Cancel",
              ),
            ]
          : []),
      ]),
      "no unfinished A2A task",
      "A2A tasks",
    ),
  );
}

/** Servers: each MCP server's transport, revision, capabilities, connection state and last error; A2A peers. */
export function serversPage(c: PageContext): HTMLElement {
  const servers: any[] = c.snap.servers ?? [];
  const peers: any[] = c.snap.a2aPeers ?? [];
  return h(
    "section",
    { "aria-labelledby": "servers-h" },
    h("h1", { id: "servers-h" }, "Servers"),
    h("h2", {}, "MCP servers"),
    table(
      ["server", "transport", "state", "revision", "capabilities", "implementation", "reconnects", "last error"],
      servers.map((s) => [
        s.name,
        s.transport,
        status(s.state),
        text(s.revision),
        s.capabilities.join(", ") || "—",
        s.serverInfo ? `${s.serverInfo.name} ${s.serverInfo.version}` : "—",
        text(s.reconnects),
        text(s.lastError),
      ]),
      c.snap.servers ? "no MCP server is configured" : "the agent's servers are for operators and the local user",
      "MCP servers",
    ),
    h("h2", {}, "A2A peers"),
    table(
      ["agent", "URL"],
      peers.map((p) => [p.name, p.url]),
      "no A2A peer is configured",
      "A2A peers",
    ),
  );
}
