/**
 * `tools/call` on the server, in steps: find the tool, decide whether the call runs as a task (only when
 * the session declared tasks and the tool allows it), validate the arguments, then run it — as a task the
 * receiver owns, or now, with its output checked against the tool's `outputSchema`.
 *
 * Tools spec, "Error Handling": an unknown tool is a protocol error (-32602); invalid arguments and the
 * tool's own failures are tool execution errors (`isError: true`) the model can learn from.
 */
import { validateJsonSchema } from "../../_internal/json-schema.ts";
import { isThenable } from "../../_internal/thenable.ts";
import { invalidParams, McpError } from "../../wire/errors.ts";
import type { CallToolResult } from "../../wire/index.ts";
import { hasTasksExtension } from "../../wire/schemas/tasks-extension-id.ts";
import type { RequestContext } from "../protocol/types.ts";
import { InputRequiredSignal } from "./input-required.ts";
import type { ToolEntry } from "./registry.ts";
import type { McpServer } from "./server.ts";
import type { ServerSession } from "./session.ts";
import { createTaskResult, detailedTask, extensionTaskMode, requestDeclaresTasks } from "./tasks-extension.ts";
import { type TaskCall, type TaskReceiver, taskMode } from "./tasks.ts";

type Params = Record<string, unknown>;

/** Answer one `tools/call` on `session`: at once when the tool answers at once, else a promise. */
export function callTool(server: McpServer, session: ServerSession, p: Params, ctx: RequestContext): Params | Promise<Params> {
  const name = p.name as string;
  const entry = server.registry.tools.get(name);
  if (!entry) throw invalidParams(`Unknown tool: ${name}`);
  const args = (p.arguments ?? {}) as Record<string, unknown>;
  const receiver = taskReceiverFor(server, session, entry, p, ctx);
  const check = validateJsonSchema(entry.definition.inputSchema, args);
  if (!check.valid) return toolError(`Invalid arguments for tool ${name}: ${check.errors.join("; ")}`);
  if (receiver) return startToolTask(server, session, receiver, entry, p, ctx, args);
  return callToolNow(server, session, entry, p, ctx, args);
}

/**
 * The task receiver when this call runs as a task, else undefined. Tasks spec: a receiver that does not
 * declare tasks processes the request normally, ignoring `task`. Statelessly (tasks extension) the server
 * decides per request, within what the request declared.
 */
function taskReceiverFor(server: McpServer, session: ServerSession, entry: ToolEntry, p: Params, ctx: RequestContext) {
  // Without a receiver nothing runs as a task: what the session declared need not be looked at.
  const receiver = server.options.tasks;
  if (!receiver) return undefined;
  const modern = session.modern;
  const declared = modern ? hasTasksExtension(session.declared) : session.declared.tasks?.requests?.tools?.call !== undefined;
  if (!declared) return undefined;
  const asTask = modern
    ? extensionTaskMode(entry.definition, requestDeclaresTasks(ctx)) === "task"
    : taskMode(entry.definition, p.task !== undefined && p.task !== null) === "task";
  return asTask ? receiver : undefined;
}

/** Hand the call to the task receiver: the request answers the task at once, the tool runs under it. */
function startToolTask(
  server: McpServer,
  session: ServerSession,
  receiver: TaskReceiver,
  entry: ToolEntry,
  p: Params,
  ctx: RequestContext,
  args: Record<string, unknown>,
): Params {
  const modern = session.modern;
  const ttl = modern ? undefined : (p.task as { ttl?: unknown }).ttl;
  const call: TaskCall = {
    tool: p.name as string,
    ctx,
    args,
    ttl: typeof ttl === "number" ? ttl : undefined,
    run: async (signal, retained) => {
      try {
        return await entry.handler(retained ?? args, { ...session.context(ctx, p), signal });
      } catch (e) {
        if (McpError.isInstance(e)) throw e;
        return toolError(e instanceof Error ? e.message : String(e));
      }
    },
    // Statelessly a task's news goes to whichever listen follows it (any connection of the caller).
    notify: modern
      ? async (_method, params) =>
          server.taskChanged(params.taskId as string, () => detailedTask(receiver.detail!(params.taskId as string, ctx)))
      : (method, params) => session.notify(method, params),
  };
  const task = receiver.create(call);
  return modern ? createTaskResult(task) : { task };
}

/**
 * Run the tool now; its failure is a tool error, and its structured output must match its `outputSchema`.
 * A tool that answers at once is answered at once (no async frame per call).
 */
function callToolNow(
  server: McpServer,
  session: ServerSession,
  entry: ToolEntry,
  p: Params,
  ctx: RequestContext,
  args: Record<string, unknown>,
): CallToolResult | Promise<CallToolResult> {
  let out: CallToolResult | Promise<CallToolResult>;
  try {
    out = entry.handler(args, session.context(ctx, p));
  } catch (e) {
    return toolFailure(e);
  }
  if (isThenable(out))
    return Promise.resolve(out).then(
      (result) => checkedOutput(server, entry, p, result),
      (e: unknown) => toolFailure(e),
    );
  return checkedOutput(server, entry, p, out);
}

/** A tool's failure as a tool error; protocol errors and requests for input pass on. */
function toolFailure(e: unknown): CallToolResult {
  if (McpError.isInstance(e) || InputRequiredSignal.isInstance(e)) throw e;
  return toolError(e instanceof Error ? e.message : String(e));
}

/** The tool's result, or a tool error when its structured output does not match its `outputSchema`. */
function checkedOutput(server: McpServer, entry: ToolEntry, p: Params, result: CallToolResult): CallToolResult {
  const schema = entry.definition.outputSchema;
  if (schema && entry.options.validateOutput !== false && result.isError !== true) {
    const out = result.structuredContent === undefined ? undefined : validateJsonSchema(schema, result.structuredContent);
    if (!out?.valid) {
      server.logger.warn("mcp.tool_output_invalid", { tool: p.name as string });
      const why = out ? out.errors.join("; ") : "no structuredContent";
      return toolError(`tool ${p.name as string} produced output that does not match its outputSchema: ${why}`);
    }
  }
  return result;
}

/** A tool execution error the model can read. */
function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
