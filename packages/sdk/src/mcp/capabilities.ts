/**
 * The capability map: the ONE place that decides what we declare, what we answer and what we refuse.
 *
 * Each switchable MCP feature is a row, switched by one key of
 * {@link CapabilityConfig}. Off is the default and reproduces the behaviour without the feature, exactly:
 *
 * | item | off (default) | on |
 * |---|---|---|
 * | tasks | never advertised; tools/call synchronous; a tool with `taskSupport:"required"` is not offered (logged) | client: task-augmented tools/call for tools that require it (poll `tasks/get`, fetch `tasks/result`, `tasks/cancel`); server with a task store: `tasks` declared, `tasks/*` answered |
 * | sampling | inbound `sampling/createMessage` → -32601 | declared; serviced by the handler |
 * | roots | not declared; `roots/list` → `{"roots":[]}`; never `notifications/roots/list_changed` | declared `{listChanged:true}` with the configured roots; changes notified |
 * | elicitation | not declared; `elicitation/create` → -32601 | declared; `"decline"` policy or the handler answers |
 * | completion | client never calls `completion/complete`; server declares no `completions` | allowed / declared when completers exist |
 * | prompts | client never calls prompts/* and ignores their list_changed; server declares none | allowed / declared when prompts exist |
 * | server notifications | server declares no `logging`, emits no `notifications/message` nor `notifications/progress` | declared and emitted |
 *
 * Reactivity over HTTP, the checkpoint, the time-zone cron and the gemini adapter are transport, supervisor, trigger
 * and adapter concerns, not MCP capabilities.
 * Any other unknown inbound request is -32601 (the protocol's default for methods without a handler).
 */
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Root,
  ServerCapabilities,
  Tool,
} from "../wire/index.ts";
import { invalidParams } from "../wire/errors.ts";
import { hasTasksExtension } from "../wire/schemas/tasks-extension-id.ts";
import type { RequestContext } from "./protocol/types.ts";

/** Services an inbound `sampling/createMessage` (sampling on). */
export type SamplingHandler = (params: CreateMessageRequestParams, ctx: RequestContext) => Promise<CreateMessageResult>;
/** Services an inbound `elicitation/create` (elicitation on). */
export type ElicitationHandler = (params: ElicitRequestParams, ctx: RequestContext) => Promise<ElicitResult>;
/** An elicitation mode (2025-11-25). */
export type ElicitationMode = "form" | "url";

/** The switches of the switchable surface. Everything absent or `false` is the default. */
export interface CapabilityConfig {
  /** Task-augmented tools/call for tools whose `execution.taskSupport` is `"required"`. */
  tasks?: boolean;
  /** Service inbound sampling through this handler (`tools: true` also declares tool-use sampling). */
  sampling?: false | SamplingHandler | { handler: SamplingHandler; tools?: boolean };
  /** Declare roots and answer `roots/list` with these `file://` roots. */
  roots?: false | Root[];
  /** Declare elicitation and answer with a fixed `"decline"` or through a handler. */
  elicitation?: false | "decline" | ElicitationHandler | { handler: ElicitationHandler | "decline"; modes?: ElicitationMode[] };
  /** Completion/complete (client may call it; server declares `completions` when completers exist). */
  completion?: boolean;
  /** Prompts (client may call prompts/*; server declares `prompts` when prompts exist). */
  prompts?: boolean;
  /** The server declares `logging` and emits `notifications/message` and `notifications/progress`. */
  serverNotifications?: boolean;
}

/** A row of the map: which config key switches which feature, and what each state means. */
export interface CapabilityItem {
  readonly key: keyof CapabilityConfig;
  readonly off: string;
  readonly on: string;
}

/** The rows, for documentation, `agentd version --capabilities` style output and tests. */
export const CAPABILITY_ITEMS: readonly CapabilityItem[] = [
  { key: "tasks", off: "tasks never advertised; task-required tools unavailable", on: "task-augmented tools/call" },
  { key: "sampling", off: "sampling/createMessage → -32601", on: "sampling declared and serviced" },
  { key: "roots", off: 'roots not declared; roots/list → {"roots":[]}', on: "roots declared with listChanged" },
  { key: "elicitation", off: "elicitation/create → -32601", on: "elicitation declared; decline policy or handler" },
  { key: "completion", off: "completion/complete never called nor declared", on: "completion allowed and declared" },
  { key: "prompts", off: "prompts ignored by the client, not declared by the server", on: "prompts used and declared" },
  {
    key: "serverNotifications",
    off: "no logging capability, no message/progress emitted",
    on: "logging declared; message and progress emitted",
  },
];

/** Whether an item is switched on. */
export function isOn(config: CapabilityConfig, key: keyof CapabilityConfig): boolean {
  const v = config[key];
  return v !== undefined && v !== false;
}

// ---------------------------------------------------------------------------------------------------------
// Client side

/** What the client declares in `initialize`. By default (everything off): `{}`. */
export function clientCapabilities(config: CapabilityConfig): ClientCapabilities {
  const caps: ClientCapabilities = {};
  const sampling = samplingOf(config);
  if (sampling) caps.sampling = sampling.tools ? { tools: {} } : {};
  if (config.roots) caps.roots = { listChanged: true };
  const elicitation = elicitationOf(config);
  if (elicitation) caps.elicitation = Object.fromEntries(elicitation.modes.map((m) => [m, {}]));
  return caps;
}

/** How the client answers one server→client request. */
export type InboundDecision =
  /** Not registered: the peer gets -32601 before any params validation. */
  | { kind: "refuse" }
  /** An answer from the client's state (its current roots). */
  | { kind: "answer"; result: (currentRoots: readonly Root[]) => Record<string, unknown> }
  /** Serviced by a configured handler. */
  | { kind: "service"; handler: (params: Record<string, unknown>, ctx: RequestContext) => Promise<Record<string, unknown>> };

/** The client's inbound table: server→client request method → decision for a config. */
export const CLIENT_INBOUND: Readonly<Record<string, (config: CapabilityConfig) => InboundDecision>> = {
  "sampling/createMessage": (config) => {
    const s = samplingOf(config);
    return s ? { kind: "service", handler: s.handler as unknown as ServiceHandler } : { kind: "refuse" };
  },
  // roots off: a roots-curious server still interoperates — the empty list declares no boundaries.
  "roots/list": (config) =>
    config.roots
      ? { kind: "answer", result: (roots) => ({ roots: roots.map((r) => ({ ...r })) }) }
      : { kind: "answer", result: () => ({ roots: [] }) },
  "elicitation/create": (config) => {
    const e = elicitationOf(config);
    if (!e) return { kind: "refuse" };
    return { kind: "service", handler: elicitationService(e) };
  },
};

/** The client's notification filter: server→client notifications a switched-off item ignores. */
export const CLIENT_IGNORED_NOTIFICATIONS: Readonly<Record<string, keyof CapabilityConfig>> = {
  "notifications/prompts/list_changed": "prompts",
  "notifications/tasks/status": "tasks",
};

/** Gate of one client→server request: our own switch, then the server's declaration. */
interface OutboundRule {
  item?: keyof CapabilityConfig;
  server: (caps: ServerCapabilities) => boolean;
  /** What a list method yields when the server lacks the capability: nothing to list, not an error. */
  whenServerLacks: "empty" | "refuse";
}

const has = (v: unknown) => v !== undefined && v !== null;

/** The client's outbound table. Methods not listed (ping, notifications) are always allowed. */
export const CLIENT_OUTBOUND: Readonly<Record<string, OutboundRule>> = {
  "tools/list": { server: (c) => has(c.tools), whenServerLacks: "empty" },
  "tools/call": { server: (c) => has(c.tools), whenServerLacks: "refuse" },
  "resources/list": { server: (c) => has(c.resources), whenServerLacks: "empty" },
  "resources/templates/list": { server: (c) => has(c.resources), whenServerLacks: "empty" },
  "resources/read": { server: (c) => has(c.resources), whenServerLacks: "refuse" },
  "resources/subscribe": { server: (c) => c.resources?.subscribe === true, whenServerLacks: "refuse" },
  "resources/unsubscribe": { server: (c) => c.resources?.subscribe === true, whenServerLacks: "refuse" },
  "prompts/list": { item: "prompts", server: (c) => has(c.prompts), whenServerLacks: "empty" },
  "prompts/get": { item: "prompts", server: (c) => has(c.prompts), whenServerLacks: "refuse" },
  "completion/complete": { item: "completion", server: (c) => has(c.completions), whenServerLacks: "refuse" },
  "logging/setLevel": { server: (c) => has(c.logging), whenServerLacks: "refuse" },
  "tasks/get": { item: "tasks", server: (c) => has(c.tasks) || hasTasksExtension(c), whenServerLacks: "refuse" },
  "tasks/result": { item: "tasks", server: (c) => has(c.tasks), whenServerLacks: "refuse" },
  "tasks/cancel": { item: "tasks", server: (c) => has(c.tasks?.cancel) || hasTasksExtension(c), whenServerLacks: "refuse" },
  "tasks/update": { item: "tasks", server: (c) => hasTasksExtension(c), whenServerLacks: "refuse" },
  "tasks/list": { item: "tasks", server: (c) => has(c.tasks?.list), whenServerLacks: "empty" },
};

/** The decision on one outbound client request. */
export type OutboundDecision = { kind: "send" } | { kind: "empty" } | { kind: "refuse"; reason: string };

// Shared: the verdict is asked on every request, and a fresh object each time is garbage.
const SEND: OutboundDecision = Object.freeze({ kind: "send" });
const EMPTY: OutboundDecision = Object.freeze({ kind: "empty" });

/** May the client send `method` to a server that declared `server`? */
export function clientOutbound(config: CapabilityConfig, server: ServerCapabilities, method: string): OutboundDecision {
  if (!Object.hasOwn(CLIENT_OUTBOUND, method)) return SEND;
  const rule = CLIENT_OUTBOUND[method] as OutboundRule;
  if (rule.item && !isOn(config, rule.item)) {
    return { kind: "refuse", reason: `${method} is off; enable capabilities.${rule.item} to use it` };
  }
  if (rule.server(server)) return SEND;
  if (rule.whenServerLacks === "empty") return EMPTY;
  return { kind: "refuse", reason: `the server did not declare the capability ${method} needs` };
}

/** Whether a listed tool is offered to callers, and why not (tasks off). */
export function toolAvailability(
  config: CapabilityConfig,
  server: ServerCapabilities,
  tool: Tool,
): { offered: true; asTask: boolean } | { offered: false; reason: string } {
  if (tool.execution?.taskSupport !== "required") return { offered: true, asTask: false };
  if (!config.tasks)
    return { offered: false, reason: 'requires task-augmented execution (taskSupport "required") and tasks are off (capabilities.tasks)' };
  // Statelessly (tasks extension) the server decides which calls become tasks; declaring it is enough.
  if (hasTasksExtension(server)) return { offered: true, asTask: false };
  if (!has(server.tasks?.requests?.tools?.call))
    return { offered: false, reason: "requires tasks but the server does not declare tasks.requests.tools.call" };
  return { offered: true, asTask: true };
}

// ---------------------------------------------------------------------------------------------------------
// Server side

/** What a server has registered, as far as declaration is concerned. */
export interface ServerFeatures {
  tools: boolean;
  resources: boolean;
  prompts: boolean;
  completions: boolean;
  /** A task store is attached (tasks, server side). */
  tasks?: boolean;
}

/** What the server declares in `initialize`. `tasks` only when switched on and a task store is attached. */
export function serverCapabilities(config: CapabilityConfig, features: ServerFeatures): ServerCapabilities {
  const caps: ServerCapabilities = {};
  if (features.tools) caps.tools = { listChanged: true };
  if (features.resources) caps.resources = { subscribe: true, listChanged: true };
  if (features.prompts && config.prompts) caps.prompts = { listChanged: true };
  if (features.completions && config.completion) caps.completions = {};
  if (config.serverNotifications) caps.logging = {};
  if (config.tasks && features.tasks && features.tools) caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  return caps;
}

/** The server's inbound table: client→server method → the declared capability it needs. */
export const SERVER_INBOUND: Readonly<Record<string, (caps: ServerCapabilities) => boolean>> = {
  "tools/list": (c) => has(c.tools),
  "tools/call": (c) => has(c.tools),
  "resources/list": (c) => has(c.resources),
  "resources/templates/list": (c) => has(c.resources),
  "resources/read": (c) => has(c.resources),
  "resources/subscribe": (c) => c.resources?.subscribe === true,
  "resources/unsubscribe": (c) => c.resources?.subscribe === true,
  "prompts/list": (c) => has(c.prompts),
  "prompts/get": (c) => has(c.prompts),
  "completion/complete": (c) => has(c.completions),
  "logging/setLevel": (c) => has(c.logging),
  "tasks/get": (c) => has(c.tasks) || hasTasksExtension(c),
  "tasks/result": (c) => has(c.tasks),
  "tasks/list": (c) => has(c.tasks?.list),
  "tasks/cancel": (c) => has(c.tasks?.cancel) || hasTasksExtension(c),
  "tasks/update": (c) => hasTasksExtension(c),
};

/** Whether the server emits `notifications/message` and `notifications/progress` (server notifications). */
export const serverEmitsNotifications = (config: CapabilityConfig): boolean => config.serverNotifications === true;

// ---------------------------------------------------------------------------------------------------------

type ServiceHandler = (params: Record<string, unknown>, ctx: RequestContext) => Promise<Record<string, unknown>>;

function samplingOf(config: CapabilityConfig): { handler: SamplingHandler; tools: boolean } | undefined {
  const s = config.sampling;
  if (!s) return undefined;
  return typeof s === "function" ? { handler: s, tools: false } : { handler: s.handler, tools: s.tools === true };
}

function elicitationOf(config: CapabilityConfig): { handler: ElicitationHandler | "decline"; modes: ElicitationMode[] } | undefined {
  const e = config.elicitation;
  if (!e) return undefined;
  if (e === "decline" || typeof e === "function") return { handler: e, modes: ["form"] };
  return { handler: e.handler, modes: e.modes && e.modes.length > 0 ? e.modes : ["form"] };
}

function elicitationService(e: { handler: ElicitationHandler | "decline"; modes: ElicitationMode[] }): ServiceHandler {
  return async (params, ctx) => {
    const mode = typeof params.mode === "string" ? params.mode : "form";
    // Elicitation spec: a mode not declared in client capabilities → -32602.
    if (!e.modes.includes(mode as ElicitationMode)) throw invalidParams(`elicitation mode "${mode}" was not declared by this client`);
    if (e.handler === "decline") return { action: "decline" };
    return (await e.handler(params as ElicitRequestParams, ctx)) as Record<string, unknown>;
  };
}
