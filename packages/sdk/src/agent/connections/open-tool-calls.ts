/**
 * The MCP tool calls in flight, per server, with the run each belongs to. A server that sends a request
 * back while serving a `tools/call` (an `elicitation/create`) gives no reliable link to that call, so the
 * request is attributed as sampling is (sampling-ledger.ts): to the oldest call in flight on that server.
 */
import type { Logger } from "../../log.ts";
import type { CapabilityConfig } from "../../mcp/capabilities.ts";
import { operatorElicitation } from "../../mcp/client/elicitation-policies.ts";
import type { InFlightRuns } from "./in-flight-runs.ts";

interface OpenCall {
  server: string;
  runId: string;
  signal: AbortSignal;
}

/** One agent's open tool calls. */
export class OpenToolCalls {
  private readonly open: OpenCall[] = [];

  /** A call on `server` for `runId` starts; the returned function ends it. */
  begin(server: string, runId: string, signal: AbortSignal): () => void {
    const call: OpenCall = { server, runId, signal };
    this.open.push(call);
    return () => {
      const i = this.open.indexOf(call);
      if (i >= 0) this.open.splice(i, 1);
    };
  }

  /** The run (and its call's signal) a request of `server` belongs to, if a call of it is in flight. */
  oldest(server: string): { runId: string; signal: AbortSignal } | undefined {
    const call = this.open.find((c) => c.server === server);
    return call ? { runId: call.runId, signal: call.signal } : undefined;
  }
}

/**
 * The `operator` elicitation policy's wiring: the calls in flight, and each server's capabilities with the
 * policy as its handler. Who answers is the run's own `askOperator` (a run served over A2A has one), read
 * from the run in flight the oldest call belongs to.
 */
export function operatorRouting(
  logger: Logger,
  runs: InFlightRuns,
): {
  calls: OpenToolCalls;
  capabilities(server: string, base: CapabilityConfig | undefined): CapabilityConfig;
} {
  const calls = new OpenToolCalls();
  const reach = (server: string) => {
    const call = calls.oldest(server);
    if (!call) return { reason: "no tool call of this server is in flight, so no run to ask for" };
    const ask = runs.get(call.runId)?.askOperator;
    if (!ask) return { reason: "the run is not served over A2A with an operator configured: no operator can answer" };
    return { ask, signal: call.signal };
  };
  return {
    calls,
    capabilities: (server, base) => ({
      ...base,
      elicitation: { handler: operatorElicitation(server, () => reach(server), logger), modes: ["form"] },
    }),
  };
}
