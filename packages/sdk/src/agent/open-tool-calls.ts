/**
 * The MCP tool calls in flight, per server, with the run each belongs to. A server that sends a request
 * back while serving a `tools/call` (an `elicitation/create`) gives no reliable link to that call, so the
 * request is attributed as sampling is (sampling-ledger.ts): to the oldest call in flight on that server.
 */

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
