/**
 * Who pays for a sampling request: the run whose tool call caused it. A server samples while it serves a
 * `tools/call`, and the request carries no reliable link to that call, so the ledger bills the oldest tool
 * call in flight on the same server; the usage travels back with that call's outcome (`ToolCallOutcome.usage`),
 * so it counts in the run's budget and, through a subagent's run usage, up the subagent tree. A request
 * while no tool call of that server is in flight (a server sampling on its own) is billed to no run and
 * shows in the agent's totals only.
 */
import { addUsage, emptyUsage, type Usage } from "../../model/language-model.ts";

/** Sampling usage, reported apart from the model turns (it is also part of the run's usage). */
export interface SamplingReport {
  /** Sampling requests answered. */
  requests: number;
  usage: Usage;
}

/** A run's share of sampling: what sampling its tool calls caused, kept on the run itself (agent/run/run.ts). */
export class SamplingShare {
  requests = 0;
  usage: Usage = emptyUsage();

  /** What it came to, or undefined when no sampling was billed to the run. */
  report(): SamplingReport | undefined {
    return this.requests > 0 ? { requests: this.requests, usage: { ...this.usage } } : undefined;
  }
}

interface OpenCall {
  server: string;
  runId: string;
  /** The run's share, when the call belongs to a run in flight. */
  share: SamplingShare | undefined;
  usage: Usage;
  requests: number;
}

/** One agent's ledger. */
export class SamplingLedger {
  private readonly open: OpenCall[] = [];
  private readonly servers = new Map<string, SamplingReport>();

  /**
   * A tool call on `server` for `runId` starts (billing `share`, the run's own); `end()` returns what
   * sampling it caused used.
   */
  begin(server: string, runId: string, share?: SamplingShare): { end(): Usage | undefined } {
    const call: OpenCall = { server, runId, share, usage: emptyUsage(), requests: 0 };
    this.open.push(call);
    return {
      end: () => {
        const i = this.open.indexOf(call);
        if (i >= 0) this.open.splice(i, 1);
        return call.requests > 0 ? call.usage : undefined;
      },
    };
  }

  /** Record one answered request of `server`; returns the run billed, if any. */
  charge(server: string, usage: Usage): string | undefined {
    add(this.servers, server, usage);
    const call = this.open.find((c) => c.server === server);
    if (!call) return undefined;
    call.usage = addUsage(call.usage, usage);
    call.requests++;
    if (call.share) {
      call.share.usage = addUsage(call.share.usage, usage);
      call.share.requests++;
    }
    return call.runId;
  }

  /** Totals per server since the agent started. */
  byServer(): Record<string, SamplingReport> {
    return Object.fromEntries([...this.servers].map(([k, r]) => [k, { requests: r.requests, usage: { ...r.usage } }]));
  }
}

function add(map: Map<string, SamplingReport>, key: string, usage: Usage): void {
  const r = map.get(key) ?? { requests: 0, usage: emptyUsage() };
  map.set(key, { requests: r.requests + 1, usage: addUsage(r.usage, usage) });
}
