/**
 * The figures of the Overview's charts that a run summary does not carry: tool calls per MCP server and how
 * many failed, from the details of the runs held here (the viewer's own, or every principal's for an operator),
 * each with the runs it counts so a chart's bar links to them. The rest of the charts (runs per hour, durations,
 * tokens and spend per day) are drawn in the page from the run summaries it already holds.
 */
import type { RunRegistry } from "../../serve/run-registry.ts";

/** Tool calls of one server. */
export interface ServerCalls {
  /** The MCP server (`agent` for the agent's own tools, which name none). */
  server: string;
  calls: number;
  errors: number;
  /** The runs that called it, as `principal\nrunId`, newest first (at most {@link CHART_RUNS}). */
  runs: string[];
}

/** Runs a chart's bar names (its link shows them). */
export const CHART_RUNS = 200;

/** Tool calls per server over the runs `owner` may see (undefined: every principal's), most calls first. */
export function toolCallsByServer(registry: RunRegistry, owner: string | undefined): ServerCalls[] {
  const by = new Map<string, ServerCalls>();
  const held = registry.records(owner).reverse();
  for (const { owner: principal, record } of held)
    for (const turn of record.detail?.turns ?? [])
      for (const call of turn.toolCalls) {
        const server = call.server ?? "agent";
        let s = by.get(server);
        if (!s) by.set(server, (s = { server, calls: 0, errors: 0, runs: [] }));
        s.calls++;
        if (call.error !== undefined) s.errors++;
        const key = `${principal}\n${record.runId}`;
        if (s.runs.length < CHART_RUNS && s.runs.at(-1) !== key && !s.runs.includes(key)) s.runs.push(key);
      }
  return [...by.values()].sort((a, b) => b.calls - a.calls || a.server.localeCompare(b.server));
}
