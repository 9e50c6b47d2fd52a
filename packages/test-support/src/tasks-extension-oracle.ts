/**
 * Test oracle for the MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663). Its schema is not
 * in `../../sdk/src/shared/specs`, so this is a JSON Schema written by hand from the extension's type definitions —
 * `schema/draft/schema.ts` of github.com/modelcontextprotocol/ext-tasks at commit
 * e4345978be1f602f1fc48d89051e8559dd5302a6 (and `specification/draft/tasks.md` there) — with every core
 * type (`Result`, `RequestParams`, `InputRequests`, `InputResponses`, `Error`, `NotificationParams`)
 * taken by `$ref` from the official 2026-07-28 schema in `../../sdk/src/shared/specs`. Test-only; never shipped.
 */
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ValidateFunction } from "ajv";
import { officialSchemaPath } from "./shared-specs.ts";
import type { OracleVerdict } from "./oracle.ts";

const CORE = "mcp-2026-07-28";
const core = (name: string) => ({ $ref: `${CORE}#/$defs/${name}` });
const int = { type: "integer" };

const task = {
  type: "object",
  properties: {
    taskId: { type: "string" },
    status: { enum: ["working", "input_required", "completed", "failed", "cancelled"] },
    statusMessage: { type: "string" },
    createdAt: { type: "string" },
    lastUpdatedAt: { type: "string" },
    ttlMs: { anyOf: [int, { type: "null" }] },
    pollIntervalMs: int,
  },
  required: ["taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs"],
};

/** `DetailedTask`: the union of the five status variants, each with its payload required. */
const detailedTask = {
  allOf: [{ $ref: "#/$defs/Task" }],
  oneOf: [
    { properties: { status: { const: "working" } } },
    { properties: { status: { const: "input_required" }, inputRequests: core("InputRequests") }, required: ["inputRequests"] },
    { properties: { status: { const: "completed" }, result: { type: "object" } }, required: ["result"] },
    { properties: { status: { const: "failed" }, error: core("Error") }, required: ["error"] },
    { properties: { status: { const: "cancelled" } } },
  ],
};

const request = (method: string, params: Record<string, unknown>) => ({
  allOf: [core("JSONRPCRequest")],
  properties: { method: { const: method }, params: { allOf: [core("RequestParams"), params] } },
  required: ["method", "params"],
});

const ack = { allOf: [core("Result")], properties: { resultType: { const: "complete" } } };

const extension = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "mcp-tasks-extension",
  $defs: {
    Task: task,
    DetailedTask: detailedTask,
    CreateTaskResult: { allOf: [core("Result"), { $ref: "#/$defs/Task" }], properties: { resultType: { const: "task" } } },
    GetTaskRequest: request("tasks/get", { properties: { taskId: { type: "string" } }, required: ["taskId"] }),
    GetTaskResult: { allOf: [core("Result"), { $ref: "#/$defs/DetailedTask" }], properties: { resultType: { const: "complete" } } },
    UpdateTaskRequest: request("tasks/update", {
      properties: { taskId: { type: "string" }, inputResponses: core("InputResponses") },
      required: ["taskId", "inputResponses"],
    }),
    UpdateTaskResult: ack,
    CancelTaskRequest: request("tasks/cancel", { properties: { taskId: { type: "string" } }, required: ["taskId"] }),
    CancelTaskResult: ack,
    TaskStatusNotification: {
      allOf: [core("JSONRPCNotification")],
      properties: {
        method: { const: "notifications/tasks" },
        params: { allOf: [core("NotificationParams"), { $ref: "#/$defs/DetailedTask" }] },
      },
      required: ["method", "params"],
    },
    /** The listen filter and its acknowledgement gain `taskIds` (the extension's "Subscription Additions"). */
    TaskSubscriptionNotifications: { properties: { taskIds: { type: "array", items: { type: "string" } } } },
  },
};

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function validator(name: string): ValidateFunction {
  if (ajv === undefined) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(JSON.parse(readFileSync(officialSchemaPath("2026-07-28"), "utf8")), CORE);
    ajv.addSchema(extension);
  }
  let fn = compiled.get(name);
  if (fn === undefined) {
    fn = ajv.compile({ $ref: `mcp-tasks-extension#/$defs/${name}` });
    compiled.set(name, fn);
  }
  return fn;
}

/** The extension's definition names: [request, result] per method. */
const REQUESTS: Record<string, readonly [string, string]> = {
  "tasks/get": ["GetTaskRequest", "GetTaskResult"],
  "tasks/update": ["UpdateTaskRequest", "UpdateTaskResult"],
  "tasks/cancel": ["CancelTaskRequest", "CancelTaskResult"],
};

/**
 * Validate one extension message: a `tasks/*` request, `notifications/tasks`, the result of a `tasks/*`
 * request (pass its method), or a `CreateTaskResult` (pass `"tools/call"` with a `resultType: "task"` result).
 */
export function validateTasksExtension(value: Record<string, unknown>, method?: string): OracleVerdict {
  let name: string | undefined;
  let target: unknown = value;
  if (typeof value.method === "string")
    name = value.method === "notifications/tasks" ? "TaskStatusNotification" : REQUESTS[value.method]?.[0];
  else if ("result" in value && method !== undefined) {
    target = value.result;
    const r = value.result as { resultType?: unknown };
    name = r.resultType === "task" ? "CreateTaskResult" : REQUESTS[method]?.[1];
  }
  if (name === undefined) return { ok: false, errors: `no tasks-extension definition for ${String(value.method ?? method)}` };
  const fn = validator(name);
  if (fn(target)) return { ok: true, errors: "" };
  return {
    ok: false,
    errors: `${name}: ${(fn.errors ?? [])
      .slice(0, 6)
      .map((e) => `${e.instancePath} ${e.message ?? ""}`)
      .join("; ")}`,
  };
}
