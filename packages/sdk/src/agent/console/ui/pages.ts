/// <reference lib="dom" />
/**
 * The console's pages, each drawn from the latest snapshot: Overview, Runs (with filters), a run's detail,
 * Triggers, Subagents and tasks, Servers. A page shows the fields it knows and every other field of a
 * record as keys and values, so richer records appear as they are.
 */
import { card, duration, h, kv, status, table, text, when } from "./dom.ts";
import { usageTable, sumCost, spend, sumUsage, runTable } from "./run-parts.ts";
import { charts } from "./charts.ts";

/** What a page draws with. */
export interface PageContext {
  snap: any;
  operator: boolean;
  /** Run an operator action, report its outcome in the banner, and return its result. */
  act(action: string, params?: Record<string, unknown>, confirmText?: string): Promise<unknown>;
}

export { runDetail, runsPage } from "./run-pages.ts";

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
      spend("Spend since start", st.costUsd !== undefined ? { usd: st.costUsd, unpriced: 0 } : undefined, "spend-start", Boolean(o.prices)),
      spend("Spend today", sumCost(todays), "spend-today", Boolean(o.prices)),
    ),
    h("h2", {}, "Charts"),
    charts(c.snap),
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
