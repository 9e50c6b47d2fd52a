/**
 * What `agentd status` prints on a terminal: the overview, the runs in flight and the last failures, as
 * aligned tables. Pure: a snapshot in, text out (the command fetches and writes). Whatever the server sent is
 * shown with its control characters escaped (terminal-text.ts): a run's instruction is another principal's text.
 */
import type { ModelPrices } from "@agentd/sdk/loop";
import type { AgentStatus, RunSummary } from "@agentd/sdk/serve";
import { forTerminal } from "../terminal-text.ts";

/** What one look at a running agentd gathers. */
export interface StatusSnapshot {
  /** The MCP endpoint read. */
  url: string;
  /** `agent://status` as served (an operator's view adds `principals`, `triggers`). */
  status: AgentStatus & { principals?: Record<string, unknown>; triggers?: unknown[]; prices?: ModelPrices };
  /** Runs in flight (`agent://runs?status=running`). */
  running: RunSummary[];
  /** Runs stopped for a person's decision, saved until resumed (`agent://runs?status=waiting`). */
  waiting?: RunSummary[];
  /** The last failed runs, newest first (`agent://runs?status=failed`). */
  failures: RunSummary[];
  /** When the snapshot was taken (ISO). */
  at: string;
}

/** The configured prices in words: "$3 in, $15 out per million tokens". */
function priceWords(p: ModelPrices): string {
  const usd = (n: number | undefined) => `$${Number(n ?? 0)}`;
  const extra = [
    p.cacheReadPerMTokUsd !== undefined ? `${usd(p.cacheReadPerMTokUsd)} cache read` : "",
    p.cacheWritePerMTokUsd !== undefined ? `${usd(p.cacheWritePerMTokUsd)} cache write` : "",
    p.reasoningPerMTokUsd !== undefined ? `${usd(p.reasoningPerMTokUsd)} reasoning` : "",
  ].filter(Boolean);
  return `priced at ${[`${usd(p.inputPerMTokUsd)} in`, `${usd(p.outputPerMTokUsd)} out`, ...extra].join(", ")} per million tokens`;
}

/**
 * Rows as aligned columns: each column as wide as its widest cell, two spaces apart. Every cell is text a
 * server sent (a run id, an instruction, a code, a message): control characters are shown escaped.
 */
export function table(header: readonly string[], rawRows: readonly (readonly string[])[]): string {
  const rows = rawRows.map((r) => r.map((cell) => forTerminal(String(cell))));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}

/** A duration as a person reads it: 42s, 3m05s, 2h07m, 3d04h. */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h${String(m % 60).padStart(2, "0")}m`;
  return `${Math.floor(h / 24)}d${String(h % 24).padStart(2, "0")}h`;
}

const cut = (s: string, n: number) => {
  const line = s.replace(/\s+/g, " ").trim();
  return line.length > n ? `${line.slice(0, n - 1)}…` : line;
};

/** The snapshot as text for a terminal. */
export function renderStatus(snap: StatusSnapshot): string {
  const now = Date.parse(snap.at);
  const st = snap.status;
  const u = st.usage;
  const operator = st.principals !== undefined;
  const overview = table(
    ["", ""],
    [
      ["agentd", snap.url],
      ["state", `${st.state} (${st.running.length} in flight${st.waiting?.length ? `, ${st.waiting.length} waiting for a decision` : ""})`],
      ["up", age(now - Date.parse(st.startedAt))],
      ["runs", `${st.runsStarted} started, ${st.runsSucceeded} succeeded, ${st.runsFailed} failed`],
      [
        "tokens",
        `${u.inputTokens} in (${u.cacheReadTokens ?? 0} cache read, ${u.cacheWriteTokens ?? 0} cache write), ${u.outputTokens} out (${u.reasoningTokens ?? 0} reasoning)`,
      ],
      // Money only where prices are configured (model.prices): otherwise the tokens above are all there is.
      [
        "spend",
        st.costUsd !== undefined
          ? `$${st.costUsd.toFixed(st.costUsd !== 0 && st.costUsd < 0.01 ? 4 : 2)}`
          : st.prices
            ? `$0.00 (no priced run has ended yet; ${priceWords(st.prices)})`
            : "tokens only (no model prices)",
      ],
      ...(Array.isArray(st.triggers) ? [["triggers", String(st.triggers.length)]] : []),
      ...(operator ? [["principals", String(Object.keys(st.principals!).length)]] : []),
    ],
  )
    .split("\n")
    .slice(1)
    .join("\n");
  const who = (r: RunSummary) => (operator ? [r.principal ?? ""] : []);
  const running = snap.running.length
    ? table(
        ["RUN", "VIA", ...(operator ? ["PRINCIPAL"] : []), "FOR", "TURNS", "TOOLS", "INSTRUCTION"],
        snap.running.map((r) => [
          r.runId,
          r.trigger ? `trigger:${r.trigger}` : (r.via ?? ""),
          ...who(r),
          age(now - Date.parse(r.startedAt)),
          String(r.turns),
          String(r.toolCalls),
          cut(r.instruction, 48),
        ]),
      )
    : "none";
  const waiting = snap.waiting?.length
    ? table(
        ["RUN", "VIA", ...(operator ? ["PRINCIPAL"] : []), "FOR", "WAITING ON", "INSTRUCTION"],
        snap.waiting.map((r) => [
          r.runId,
          r.trigger ? `trigger:${r.trigger}` : (r.via ?? ""),
          ...who(r),
          age(now - Date.parse(r.startedAt)),
          (r.waitingOn ?? []).join(", "),
          cut(r.instruction, 48),
        ]),
      )
    : undefined;
  // With a shared run history (durability.store) the failures are the fleet's: say which replica ran each.
  const fleet = snap.failures.some((r) => r.replica !== undefined);
  const failures = snap.failures.length
    ? table(
        ["RUN", "VIA", ...(operator ? ["PRINCIPAL"] : []), ...(fleet ? ["REPLICA"] : []), "AGO", "CODE", "MESSAGE"],
        snap.failures.map((r) => [
          r.runId,
          r.trigger ? `trigger:${r.trigger}` : (r.via ?? ""),
          ...who(r),
          ...(fleet ? [r.replica ?? ""] : []),
          age(now - Date.parse(r.endedAt ?? r.startedAt)),
          r.error?.code ?? "",
          cut(r.error?.message ?? "", 60),
        ]),
      )
    : "none";
  const waits = waiting ? `\n\nWaiting for a decision (agentd approvals list)\n${waiting}` : "";
  return `${overview}\n\nRunning\n${running}${waits}\n\nLast failures\n${failures}\n`;
}
