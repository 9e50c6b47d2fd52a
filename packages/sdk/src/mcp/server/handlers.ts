/**
 * The handlers of a server's sessions, one per client→server method, built once per {@link McpServer} and
 * shared by all its sessions (each finds its {@link ServerSession} as `peer.owner`). Params arrive validated
 * by the codec; these functions add what the codec cannot know (unknown names, cursors, template matching,
 * tool argument schemas). A session answers only what it declared: the gate refuses the rest with -32601,
 * exactly as if no handler were registered.
 *
 * `tools/call`, the one with the most steps, is its own module (tool-call.ts).
 */
import { invalidParams, McpError } from "../../wire/errors.ts";
import { ErrorCode } from "../../wire/jsonrpc.ts";
import { SERVER_INBOUND } from "../capabilities.ts";
import type { RegisteredNotification, RegisteredRequest, SharedHandlers } from "../protocol/handler-table.ts";
import type { Protocol } from "../protocol/protocol.ts";
import type { CompleteResult } from "../../wire/index.ts";
import { paginate } from "./pagination.ts";
import type { Completers, Registry } from "./registry.ts";
import type { McpServer } from "./server.ts";
import { resourceNotFound, type ServerSession } from "./session.ts";
import { discoverResult, statelessResult } from "./stateless-2026-07-28.ts";
import { InputRequiredSignal, inputRequiredResult } from "./input-required.ts";
import type { SubscriptionFilter } from "../../wire/types/methods-2026-07-28.generated.ts";
import type { McpRequestHandler, RequestContext } from "../protocol/types.ts";
import { taskMethodHandlers } from "./tasks.ts";
import { callTool } from "./tool-call.ts";
import { isThenable } from "../../_internal/thenable.ts";
import { handleExtensionTaskRequest } from "./tasks-extension.ts";

/** The spec's cap on completion values per response. */
const MAX_COMPLETIONS = 100;

/** The session a shared handler runs for. */
const sessionOf = (peer: Protocol) => peer.owner as ServerSession;

/** Build the handler table every session of `server` shares. */
export function sessionHandlers(server: McpServer): SharedHandlers {
  const requests = new Map<string, RegisteredRequest>();
  const add = (method: string, handler: McpRequestHandler) => requests.set(method, { handler, custom: false });
  add("initialize", (params, _ctx, peer) => sessionOf(peer).handleInitialize(params));
  for (const [method, handler] of Object.entries(methodHandlers(server)))
    add(method, INPUT_CAPABLE.has(method) ? askingForInput(handler) : handler);
  // 2026-07-28 only (the handshake revisions' codecs do not know these methods: -32601 there).
  add("server/discover", () => discoverResult(server));
  add("subscriptions/listen", (p, ctx, peer) => sessionOf(peer).listen(p.notifications as SubscriptionFilter, ctx));
  const notifications = new Map<string, RegisteredNotification>([
    ["notifications/initialized", { handler: (_p, _e, peer) => sessionOf(peer).handleInitialized(), custom: false }],
    ["notifications/roots/list_changed", { handler: (_p, _e, peer) => sessionOf(peer).events.emit("rootsListChanged"), custom: false }],
  ]);
  return {
    requests,
    notifications,
    gate: (method, peer, params) => {
      const session = sessionOf(peer);
      const refused = session.gateRequest(method, params);
      if (refused) return refused;
      const needs = SERVER_INBOUND[method];
      // An undeclared capability's method is not answered, unless this session registered a handler of its own.
      if (needs && (session.initialized || session.modern) && !needs(session.declared) && !peer.hasOwnRequestHandler(method))
        return new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      return undefined;
    },
    closed: (peer) => sessionOf(peer).handleClosed(),
    finish: (method, result, peer) => (sessionOf(peer).modern ? statelessResult(method, result, server) : result),
  };
}

/** The handlers of the client→server methods after initialize (those in the capability map's table). */
function methodHandlers(server: McpServer): Record<string, McpRequestHandler> {
  const reg = server.registry;
  const listed = <T>(key: string, entries: Map<string, { definition: T }>, p: Record<string, unknown>) =>
    listPage(
      key,
      [...entries.values()].map((e) => e.definition),
      p,
      server.options.pageSize,
    );
  return {
    "tools/list": (p) => listed("tools", reg.tools, p),
    "tools/call": (p, ctx, peer) => callTool(server, sessionOf(peer), p, ctx),
    "resources/list": (p) => listed("resources", reg.resources, p),
    "resources/templates/list": (p) => listed("resourceTemplates", reg.templates, p),
    "resources/read": (p, ctx, peer) => readResource(reg, sessionOf(peer), p, ctx),
    "resources/subscribe": (p, _ctx, peer) => {
      sessionOf(peer).subscribe(p.uri as string);
      return {};
    },
    "resources/unsubscribe": (p, _ctx, peer) => {
      sessionOf(peer).unsubscribe(p.uri as string);
      return {};
    },
    "prompts/list": (p) => listed("prompts", reg.prompts, p),
    "prompts/get": (p, ctx, peer) => getPrompt(reg, sessionOf(peer), p, ctx),
    "completion/complete": (p) => complete(reg, p),
    ...revisionTaskHandlers(server),
    "logging/setLevel": (p, _ctx, peer) => {
      sessionOf(peer).logLevel = p.level as ServerSession["logLevel"];
      return {};
    },
  };
}

/** One page of a list, `nextCursor` only when there is more. */
function listPage<T>(key: string, items: T[], p: Record<string, unknown>, pageSize: number): Record<string, unknown> {
  const { page, nextCursor } = paginate(items, typeof p.cursor === "string" ? p.cursor : undefined, pageSize);
  return nextCursor === undefined ? { [key]: page } : { [key]: page, nextCursor };
}

/** `resources/read`: a fixed resource by its URI, else the first template that matches it. */
async function readResource(reg: Registry, session: ServerSession, p: Record<string, unknown>, ctx: RequestContext) {
  const uri = p.uri as string;
  const fixed = reg.resources.get(uri);
  if (fixed) return fixed.read(uri, session.context(ctx, p));
  for (const t of reg.templates.values()) {
    const vars = t.compiled.match(uri);
    if (vars) return t.read(uri, vars, session.context(ctx, p));
  }
  // 2026-07-28 retired -32002 for -32602 (basic spec, "Error Codes").
  throw session.modern ? new McpError(ErrorCode.InvalidParams, "Resource not found", { uri }) : resourceNotFound(uri);
}

/** `prompts/get`: the prompt by name, its required arguments checked. */
async function getPrompt(reg: Registry, session: ServerSession, p: Record<string, unknown>, ctx: RequestContext) {
  const name = p.name as string;
  const entry = reg.prompts.get(name);
  if (!entry) throw invalidParams(`Unknown prompt: ${name}`);
  const args = (p.arguments ?? {}) as Record<string, string>;
  for (const a of entry.definition.arguments ?? [])
    if (a.required && args[a.name] === undefined) throw invalidParams(`Missing required argument: ${a.name}`);
  return entry.get(args, session.context(ctx, p));
}

/** `completion/complete`: the completer of a prompt's or a template's argument, capped at the spec's 100 values. */
async function complete(reg: Registry, p: Record<string, unknown>): Promise<CompleteResult> {
  const ref = p.ref as { type: string; name?: string; uri?: string };
  const argument = p.argument as { name: string; value: string };
  const context = { arguments: (p.context as { arguments?: Record<string, string> } | undefined)?.arguments ?? {} };
  let completers: Completers;
  if (ref.type === "ref/prompt") {
    const entry = reg.prompts.get(ref.name ?? "");
    if (!entry) throw invalidParams(`Unknown prompt: ${ref.name}`);
    completers = entry.complete;
  } else {
    const entry = reg.templates.get(ref.uri ?? "");
    if (!entry) throw invalidParams(`Unknown resource template: ${ref.uri}`);
    completers = entry.complete;
  }
  const completer = completers[argument.name];
  const values = completer ? await completer(argument.value, context) : [];
  const completion: CompleteResult["completion"] =
    values.length > MAX_COMPLETIONS
      ? { values: values.slice(0, MAX_COMPLETIONS), total: values.length, hasMore: true }
      : { values, total: values.length, hasMore: false };
  return { completion };
}

/** The `tasks/*` handlers: 2025-11-25's over the task store, or the tasks extension's translation of them statelessly. */
function revisionTaskHandlers(server: McpServer): Record<string, McpRequestHandler> {
  const legacy = taskMethodHandlers(() => server.options.tasks) as Record<string, McpRequestHandler>;
  const out: Record<string, McpRequestHandler> = {};
  for (const method of ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update"]) {
    const old = legacy[method];
    out[method] = (p, ctx, peer) => {
      const receiver = server.options.tasks;
      if (sessionOf(peer).modern && receiver) return handleExtensionTaskRequest(receiver, p, ctx, method);
      if (old === undefined) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      return old(p, ctx, peer);
    };
  }
  return out;
}

/** The requests a stateless server may answer with an input-required result (MRTR spec, "Supported Requests"). */
const INPUT_CAPABLE: ReadonlySet<string> = new Set(["tools/call", "resources/read", "prompts/get"]);

/**
 * A handler whose request for client input (a stateless session's `sendRequest`) becomes its interim result.
 * Not an async frame: a handler that answers at once is answered at once.
 */
function askingForInput(handler: McpRequestHandler): McpRequestHandler {
  return (params, ctx, peer) => {
    let out: ReturnType<McpRequestHandler>;
    try {
      out = handler(params, ctx, peer);
    } catch (e) {
      return inputRequiredOrThrow(e);
    }
    return isThenable(out) ? Promise.resolve(out).then(undefined, inputRequiredOrThrow) : out;
  };
}

/** The interim result a request for client input becomes; any other failure passes on. */
function inputRequiredOrThrow(e: unknown): Record<string, unknown> {
  if (InputRequiredSignal.isInstance(e)) return inputRequiredResult(e);
  throw e;
}
