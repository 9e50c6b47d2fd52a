/**
 * Test oracles: the official MCP JSON Schemas (via ajv) and the official TypeScript SDK's zod schemas.
 * What we emit and accept is pinned to them (STYLE.md). Test-only; never shipped.
 */
import { readFileSync } from "node:fs";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ValidateFunction } from "ajv";
import * as sdk from "@modelcontextprotocol/sdk/types.js";
import { officialSchemaPath } from "./shared-specs.ts";

export { NEEDS_SHARED, sharedDir, sharedMissing, sharedSpecsAvailable } from "./shared-specs.ts";

/** An oracle's verdict: `errors` is empty when `ok`. */
export interface OracleVerdict {
  ok: boolean;
  errors: string;
}

/** Official definition names per request method: [request, result]. */
export const REQUEST_DEFINITIONS: Record<string, readonly [string, string]> = {
  initialize: ["InitializeRequest", "InitializeResult"],
  ping: ["PingRequest", "EmptyResult"],
  "resources/list": ["ListResourcesRequest", "ListResourcesResult"],
  "resources/templates/list": ["ListResourceTemplatesRequest", "ListResourceTemplatesResult"],
  "resources/read": ["ReadResourceRequest", "ReadResourceResult"],
  "resources/subscribe": ["SubscribeRequest", "EmptyResult"],
  "resources/unsubscribe": ["UnsubscribeRequest", "EmptyResult"],
  "prompts/list": ["ListPromptsRequest", "ListPromptsResult"],
  "prompts/get": ["GetPromptRequest", "GetPromptResult"],
  "tools/list": ["ListToolsRequest", "ListToolsResult"],
  "tools/call": ["CallToolRequest", "CallToolResult"],
  "logging/setLevel": ["SetLevelRequest", "EmptyResult"],
  "completion/complete": ["CompleteRequest", "CompleteResult"],
  "tasks/get": ["GetTaskRequest", "GetTaskResult"],
  "tasks/result": ["GetTaskPayloadRequest", "GetTaskPayloadResult"],
  "tasks/list": ["ListTasksRequest", "ListTasksResult"],
  "tasks/cancel": ["CancelTaskRequest", "CancelTaskResult"],
  "sampling/createMessage": ["CreateMessageRequest", "CreateMessageResult"],
  "roots/list": ["ListRootsRequest", "ListRootsResult"],
  "elicitation/create": ["ElicitRequest", "ElicitResult"],
  "server/discover": ["DiscoverRequest", "DiscoverResult"],
  "subscriptions/listen": ["SubscriptionsListenRequest", "SubscriptionsListenResult"],
};

/** Official definition names per notification method. */
export const NOTIFICATION_DEFINITIONS: Record<string, string> = {
  "notifications/cancelled": "CancelledNotification",
  "notifications/initialized": "InitializedNotification",
  "notifications/progress": "ProgressNotification",
  "notifications/tasks/status": "TaskStatusNotification",
  "notifications/roots/list_changed": "RootsListChangedNotification",
  "notifications/resources/list_changed": "ResourceListChangedNotification",
  "notifications/resources/updated": "ResourceUpdatedNotification",
  "notifications/prompts/list_changed": "PromptListChangedNotification",
  "notifications/tools/list_changed": "ToolListChangedNotification",
  "notifications/message": "LoggingMessageNotification",
  "notifications/elicitation/complete": "ElicitationCompleteNotification",
  "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
};

/** Methods whose answer may be a `CreateTaskResult` (2025-11-25 task augmentation). */
const TASK_AUGMENTABLE = new Set(["tools/call", "sampling/createMessage", "elicitation/create"]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A result that answers a task-augmented request: `{ task: {...} }`. */
export const isCreateTaskResult = (method: string | undefined, result: unknown): boolean =>
  method !== undefined && TASK_AUGMENTABLE.has(method) && isObject(result) && isObject(result.task);

interface RevisionOracle {
  defs: Record<string, unknown>;
  validator(name: string): ValidateFunction | undefined;
}

const oracles = new Map<string, RevisionOracle>();

function oracleFor(revision: string): RevisionOracle {
  let o = oracles.get(revision);
  if (o) return o;
  const schema = JSON.parse(readFileSync(officialSchemaPath(revision), "utf8")) as Record<string, unknown>;
  const modern = String(schema.$schema).includes("2020-12");
  const defsKey = modern ? "$defs" : "definitions";
  // strict: false — the official files use `format: "byte"` and descriptions ajv's strict mode dislikes.
  const ajv = modern ? new Ajv2020({ strict: false, allErrors: true }) : new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const id = `mcp-${revision}`;
  ajv.addSchema(schema, id);
  const cache = new Map<string, ValidateFunction>();
  const defs = schema[defsKey] as Record<string, unknown>;
  o = {
    defs,
    validator(name) {
      if (!(name in defs)) return undefined;
      let fn = cache.get(name);
      if (!fn) {
        fn = ajv.compile({ $ref: `${id}#/${defsKey}/${name}` });
        cache.set(name, fn);
      }
      return fn;
    },
  };
  oracles.set(revision, o);
  return o;
}

function run(revision: string, name: string, value: unknown, where: string): string | undefined {
  const fn = oracleFor(revision).validator(name);
  if (!fn) return `${name} is not defined in MCP ${revision}`;
  if (fn(value)) return undefined;
  const errs = (fn.errors ?? []).slice(0, 6).map((e) => `${where}${e.instancePath} ${e.message ?? ""}`.trim());
  return `${name}: ${errs.join("; ")}`;
}

/**
 * Validate a whole JSON-RPC message against the official JSON Schema of `revision`: the envelope
 * (`JSONRPCMessage`) and the definition of its method (`tools/call` → `CallToolRequest`; for a result,
 * pass the request's `method` → `CallToolResult`, or `CreateTaskResult` for a task-augmented answer).
 * Error responses are checked as such; a -32042 error also as `URLElicitationRequiredError`.
 * Batches (arrays) are checked element by element. Needs `../../sdk/src/shared` (see `sharedSpecsAvailable`).
 */
export function validateOfficial(revision: string, message: unknown, method?: string): OracleVerdict {
  const problems: string[] = [];
  const envelope = run(revision, "JSONRPCMessage", message, "");
  if (envelope) problems.push(envelope);
  if (Array.isArray(message)) {
    for (const m of message) {
      const r = validateOfficial(revision, m, method);
      if (!r.ok) problems.push(r.errors);
    }
  } else if (isObject(message)) {
    const problem = checkDefinition(revision, message, method);
    if (problem) problems.push(problem);
  }
  return { ok: problems.length === 0, errors: problems.join(" | ") };
}

function checkDefinition(revision: string, m: Record<string, unknown>, method?: string): string | undefined {
  if (typeof m.method === "string") {
    const name = "id" in m ? REQUEST_DEFINITIONS[m.method]?.[0] : NOTIFICATION_DEFINITIONS[m.method];
    return name ? run(revision, name, m, "") : `no official definition for method ${m.method}`;
  }
  if ("result" in m) {
    if (method === undefined) return undefined; // the envelope is all we can check without the method
    const name = isCreateTaskResult(method, m.result)
      ? "CreateTaskResult"
      : isObject(m.result) && m.result.resultType === "input_required"
        ? "InputRequiredResult"
        : REQUEST_DEFINITIONS[method]?.[1];
    return name ? run(revision, name, m.result, "result") : `no official result definition for method ${method}`;
  }
  // -32042 has its own shape since 2025-11-25; before, it is just an error like any other.
  if (isObject(m.error) && m.error.code === -32042 && oracleFor(revision).validator("URLElicitationRequiredError"))
    return run(revision, "URLElicitationRequiredError", m, "");
  return undefined;
}

type ZodLike = { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } };

const SDK_REQUESTS: Record<string, ZodLike> = {
  initialize: sdk.InitializeRequestSchema,
  ping: sdk.PingRequestSchema,
  "resources/list": sdk.ListResourcesRequestSchema,
  "resources/templates/list": sdk.ListResourceTemplatesRequestSchema,
  "resources/read": sdk.ReadResourceRequestSchema,
  "resources/subscribe": sdk.SubscribeRequestSchema,
  "resources/unsubscribe": sdk.UnsubscribeRequestSchema,
  "prompts/list": sdk.ListPromptsRequestSchema,
  "prompts/get": sdk.GetPromptRequestSchema,
  "tools/list": sdk.ListToolsRequestSchema,
  "tools/call": sdk.CallToolRequestSchema,
  "logging/setLevel": sdk.SetLevelRequestSchema,
  "completion/complete": sdk.CompleteRequestSchema,
  "tasks/get": sdk.GetTaskRequestSchema,
  "tasks/result": sdk.GetTaskPayloadRequestSchema,
  "tasks/list": sdk.ListTasksRequestSchema,
  "tasks/cancel": sdk.CancelTaskRequestSchema,
  "sampling/createMessage": sdk.CreateMessageRequestSchema,
  "roots/list": sdk.ListRootsRequestSchema,
  "elicitation/create": sdk.ElicitRequestSchema,
};

const SDK_RESULTS: Record<string, ZodLike[]> = {
  initialize: [sdk.InitializeResultSchema],
  ping: [sdk.EmptyResultSchema],
  "resources/list": [sdk.ListResourcesResultSchema],
  "resources/templates/list": [sdk.ListResourceTemplatesResultSchema],
  "resources/read": [sdk.ReadResourceResultSchema],
  "resources/subscribe": [sdk.EmptyResultSchema],
  "resources/unsubscribe": [sdk.EmptyResultSchema],
  "prompts/list": [sdk.ListPromptsResultSchema],
  "prompts/get": [sdk.GetPromptResultSchema],
  "tools/list": [sdk.ListToolsResultSchema],
  "tools/call": [sdk.CallToolResultSchema],
  "logging/setLevel": [sdk.EmptyResultSchema],
  "completion/complete": [sdk.CompleteResultSchema],
  "tasks/get": [sdk.GetTaskResultSchema],
  "tasks/result": [sdk.GetTaskPayloadResultSchema],
  "tasks/list": [sdk.ListTasksResultSchema],
  "tasks/cancel": [sdk.CancelTaskResultSchema],
  // The SDK splits sampling results: tool-use content only in the "with tools" schema.
  "sampling/createMessage": [sdk.CreateMessageResultSchema, sdk.CreateMessageResultWithToolsSchema],
  "roots/list": [sdk.ListRootsResultSchema],
  "elicitation/create": [sdk.ElicitResultSchema],
};

const SDK_NOTIFICATIONS: Record<string, ZodLike> = {
  "notifications/cancelled": sdk.CancelledNotificationSchema,
  "notifications/initialized": sdk.InitializedNotificationSchema,
  "notifications/progress": sdk.ProgressNotificationSchema,
  "notifications/tasks/status": sdk.TaskStatusNotificationSchema,
  "notifications/roots/list_changed": sdk.RootsListChangedNotificationSchema,
  "notifications/resources/list_changed": sdk.ResourceListChangedNotificationSchema,
  "notifications/resources/updated": sdk.ResourceUpdatedNotificationSchema,
  "notifications/prompts/list_changed": sdk.PromptListChangedNotificationSchema,
  "notifications/tools/list_changed": sdk.ToolListChangedNotificationSchema,
  "notifications/message": sdk.LoggingMessageNotificationSchema,
  "notifications/elicitation/complete": sdk.ElicitationCompleteNotificationSchema,
};

function zod(schemas: ZodLike[], value: unknown, where: string): string | undefined {
  let first: string | undefined;
  for (const s of schemas) {
    const r = s.safeParse(value);
    if (r.success) return undefined;
    first ??= (r.error?.issues ?? [])
      .slice(0, 4)
      .map((i) => `${[where, ...i.path.map(String)].filter(Boolean).join(".")}: ${i.message}`)
      .join("; ");
  }
  return first ?? "no schema";
}

/**
 * Parse a whole JSON-RPC message with the official TypeScript SDK's zod schemas (`JSONRPCMessageSchema`
 * plus the method's own schema, e.g. `CallToolRequestSchema`; for a result, pass the request's `method`).
 */
export function parseWithOfficialSdk(message: unknown, method?: string): OracleVerdict {
  const problems: string[] = [];
  const envelope = zod([sdk.JSONRPCMessageSchema], message, "");
  if (envelope) problems.push(`JSONRPCMessage: ${envelope}`);
  if (isObject(message)) {
    let problem: string | undefined;
    if (typeof message.method === "string") {
      const schema = "id" in message ? SDK_REQUESTS[message.method] : SDK_NOTIFICATIONS[message.method];
      problem = schema ? zod([schema], message, "") : `the SDK has no schema for ${message.method}`;
    } else if ("result" in message && method !== undefined) {
      const schemas = isCreateTaskResult(method, message.result) ? [sdk.CreateTaskResultSchema] : SDK_RESULTS[method];
      problem = schemas ? zod(schemas, message.result, "result") : `the SDK has no result schema for ${method}`;
    } else if ("error" in message) {
      problem = zod([sdk.JSONRPCErrorResponseSchema], message, "");
    }
    if (problem) problems.push(problem);
  }
  return { ok: problems.length === 0, errors: problems.join(" | ") };
}
