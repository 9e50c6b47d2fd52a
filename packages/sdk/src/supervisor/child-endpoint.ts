/**
 * The child's end of the control channel: wait for `start`, run the work it describes, report `progress`,
 * answer with the result (or the error, with its usage), and stop when the parent sends `cancel` or the
 * channel breaks (the parent died: a child never outlives it). How the work is done — building the model,
 * the MCP connections, the loop — is the caller's (`agentd`'s hidden `__subagent` entry).
 */
import { AgentdError, invalidParams, McpError } from "../wire/errors.ts";
import { ControlChannel, type ControlIO } from "./control-channel.ts";
import {
  CONTROL,
  parseStartParams,
  type ChildErrorData,
  type ChildResult,
  type ProgressParams,
  type StartParams,
} from "./control-protocol.ts";

/** What the runner of a child gets besides the start params. */
export interface ChildRunContext {
  /** Aborted on `cancel`, on a broken channel, or by `abort()` of the endpoint (SIGTERM). */
  signal: AbortSignal;
  /** Report cumulative progress of this attempt to the parent. */
  progress(p: ProgressParams): void;
}

/** Runs the child's work. Throw an `AgentdError` (its `data.usage` is reported) to fail. */
export type ChildRunner = (start: StartParams, ctx: ChildRunContext) => Promise<ChildResult>;

/** Options of {@link serveSubagentChild}. */
export interface ChildEndpointOptions {
  /** How long to wait for `start` before giving up (ms, default 30 s). */
  startTimeoutMs?: number;
  /** Aborts the run from outside (the process got SIGTERM). */
  signal?: AbortSignal;
}

/** How the child's session ended. */
export interface ChildSessionEnd {
  /** Whether the parent got an answer to `start`. */
  answered: boolean;
  /** The start params, when a valid `start` arrived. */
  start?: StartParams;
  /** Why the session ended without an answer. */
  reason?: string;
}

/** The JSON-RPC error code of a failed child run (implementation-defined server-error range). */
export const CHILD_RUN_FAILED = -32010;

/** Serve one `start` over `io` with `run`. Resolves when the answer is flushed (or the channel is gone). */
export function serveSubagentChild(io: ControlIO, run: ChildRunner, options: ChildEndpointOptions = {}): Promise<ChildSessionEnd> {
  const controller = new AbortController();
  const abort = (reason: string) => controller.abort(new AgentdError("E_ABORTED", reason));
  if (options.signal?.aborted) abort("interrupted");
  options.signal?.addEventListener("abort", () => abort("interrupted by a signal"), { once: true });

  return new Promise<ChildSessionEnd>((resolve) => {
    let started: StartParams | undefined;
    let settled = false;
    const finish = (end: ChildSessionEnd) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(end);
    };
    const timer = setTimeout(() => {
      if (started) return;
      channel.close("no start message from the parent");
    }, options.startTimeoutMs ?? 30_000);

    const channel: ControlChannel = new ControlChannel(io, {
      onNotification: (method, params) => {
        if (method === CONTROL.cancel) abort(typeof params.reason === "string" ? `cancelled: ${params.reason}` : "cancelled by the parent");
      },
      onClose: (reason) => {
        abort(reason);
        // Without a start there is nothing to drain; with one, the run's own end resolves.
        if (!started) finish({ answered: false, reason });
      },
      onRequest: async (method, params) => {
        if (method !== CONTROL.start) throw new McpError(-32601, `Method not found: ${method}`);
        if (started) throw invalidParams("start was already received");
        const parsed = parseStartParams(params);
        if (!parsed.ok) {
          // Answer, then let the process end: a parent of another build must see why.
          setTimeout(() => void channel.flush().then(() => finish({ answered: true, reason: parsed.reason })), 0);
          throw invalidParams(parsed.reason);
        }
        started = parsed.value;
        const start = parsed.value;
        const answer = async (): Promise<Record<string, unknown>> => {
          try {
            const result = await run(start, {
              signal: controller.signal,
              progress: (p) => channel.notify(CONTROL.progress, p as unknown as Record<string, unknown>),
            });
            return result as unknown as Record<string, unknown>;
          } catch (e) {
            throw toWireError(e, controller.signal);
          }
        };
        try {
          return await answer();
        } finally {
          // The answer is sent after this handler returns: flush on the next turn, then report the end.
          setTimeout(() => {
            void channel.flush().then(() => finish({ answered: !channel.closed, start, reason: channel.closed }));
          }, 0);
        }
      },
    });
  });
}

/** The error answer for a failed run: its code and usage in `data`. */
function toWireError(e: unknown, signal: AbortSignal): McpError {
  if (McpError.isInstance(e)) return e;
  const local = AgentdError.isInstance(e) ? e : undefined;
  // An abort that the loop reports as something else (an adapter's own abort error) is still a cancel.
  const code = local?.code ?? (signal.aborted ? "E_ABORTED" : "E_RUN_FAILED");
  const d = local?.options.data ?? {};
  const data: ChildErrorData = {
    code,
    usage: (d.usage || undefined) as ChildErrorData["usage"],
    turns: typeof d.turns === "number" ? d.turns : undefined,
    stopReason: typeof d.stopReason === "string" ? d.stopReason : undefined,
  };
  return new McpError(CHILD_RUN_FAILED, e instanceof Error ? e.message : String(e), data);
}
