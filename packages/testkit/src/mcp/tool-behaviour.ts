/**
 * Turns a {@link FakeToolSpec} into a tool handler: logs, progress steps, a delay, then the outcome
 * (crash, hang, a request to the client, a handler, a fixed result, or text). Every wait stops when the
 * caller cancels, and the cancellation record is marked `interrupted`.
 */
import { McpError } from "@agentd/sdk/wire";
import type { CallToolResult } from "@agentd/sdk/wire";
import type { ServerContext, ServerSession, ToolDefinition, ToolHandler } from "@agentd/sdk/mcp";
import { fill } from "./fill.ts";
import type { FakeToolSpec } from "./types.ts";

/** What a tool needs from the server around it. */
export interface ToolHost {
  /** The request `ctx.requestId` of `session` stopped because it was cancelled. */
  interrupted(session: ServerSession, ctx: ServerContext): void;
  /** Die: a stdio child exits with `exitCode`; in memory the session closes. */
  crash(session: ServerSession, exitCode: number): void;
}

/** The wire definition of a tool spec (behaviour fields stripped). */
export function toolDefinition(spec: FakeToolSpec): ToolDefinition {
  const def: ToolDefinition = { name: spec.name };
  if (spec.title !== undefined) def.title = spec.title;
  def.description = spec.description ?? `fake tool ${spec.name}`;
  if (spec.inputSchema !== undefined) def.inputSchema = spec.inputSchema;
  if (spec.outputSchema !== undefined) def.outputSchema = spec.outputSchema;
  if (spec.annotations !== undefined) def.annotations = spec.annotations;
  if (spec.execution !== undefined) def.execution = spec.execution;
  return def;
}

/** The handler that plays `spec`. */
export function toolHandler(spec: FakeToolSpec, host: ToolHost): ToolHandler {
  return async (args, ctx) => {
    const stopped = () => host.interrupted(ctx.session, ctx);
    for (const log of spec.logs ?? []) await ctx.log(log.level, log.data, log.logger);
    for (const step of spec.progress ?? []) {
      if (step.delayMs) await wait(step.delayMs, ctx.signal, stopped);
      await ctx.sendProgress(step.progress, step.total, step.message);
    }
    if (spec.delayMs) await wait(spec.delayMs, ctx.signal, stopped);
    if (spec.crash) {
      host.crash(ctx.session, typeof spec.crash === "object" ? (spec.crash.exitCode ?? 1) : 1);
      // The process is gone or the connection closed: nobody is waiting for an answer.
      return wait(Number.POSITIVE_INFINITY, ctx.signal, () => {});
    }
    if (spec.hang) return wait(Number.POSITIVE_INFINITY, ctx.signal, stopped);
    if (spec.clientRequest) return askClient(spec.clientRequest, ctx);
    if (spec.handler) return spec.handler(args, ctx);
    if (spec.result) return spec.isError ? { ...spec.result, isError: true } : spec.result;
    const text = spec.text === undefined ? JSON.stringify(args) : fill(spec.text, args);
    const result: CallToolResult = { content: [{ type: "text", text }] };
    if (spec.isError) result.isError = true;
    return result;
  };
}

/** Send a request to the client; its answer (or error) becomes the tool's JSON text. */
async function askClient(request: NonNullable<FakeToolSpec["clientRequest"]>, ctx: ServerContext): Promise<CallToolResult> {
  try {
    const result = await ctx.sendRequest(request.method, request.params);
    return { content: [{ type: "text", text: JSON.stringify({ result }) }] };
  } catch (e) {
    const error = McpError.isInstance(e)
      ? { code: e.code, message: e.message }
      : { code: null, message: e instanceof Error ? e.message : String(e) };
    return { content: [{ type: "text", text: JSON.stringify({ error }) }], isError: true };
  }
}

/** Resolve after `ms` (never, for Infinity); reject with the abort reason when `signal` aborts. */
function wait(ms: number, signal: AbortSignal, onAbort: () => void): Promise<never> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = () => {
      clearTimeout(timer);
      onAbort();
      reject(signal.reason);
    };
    if (signal.aborted) return stop();
    if (Number.isFinite(ms))
      timer = setTimeout(() => {
        signal.removeEventListener("abort", stop);
        resolve(undefined as never);
      }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}
