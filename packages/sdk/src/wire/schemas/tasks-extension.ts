/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, spec in `modelcontextprotocol/ext-tasks`):
 * how 2026-07-28 carries tasks after they left the core. Negotiated per request — the client lists the
 * extension under `extensions` in its `_meta` capabilities, the server under `extensions` in
 * `server/discover` — and then a `tools/call` MAY be answered with a flat `CreateTaskResult`
 * (`resultType: "task"`). The client polls `tasks/get` (the task with its `result`, `error` or
 * `inputRequests` inlined), answers input with `tasks/update` and cancels with `tasks/cancel`; there is no
 * `tasks/result` and no `tasks/list`. Status pushes are `notifications/tasks` on a `subscriptions/listen`
 * that named the task in `notifications.taskIds`. Fields are `ttlMs` / `pollIntervalMs` here (2025-11-25
 * said `ttl` / `pollInterval`).
 */
import * as v from "valibot";
import { looseObject, record } from "./open-object.ts";
import { IntegerSchema, MetaSchema } from "./base.ts";
import { TaskStatusSchema } from "./tasks.ts";
import type { NotificationSpec, RequestSpec } from "./method-table.ts";
import { hasTasksExtension, TASKS_EXTENSION } from "./tasks-extension-id.ts";

// Defined in a module of their own, which the MCP layer can load without this one's schemas; exported here as well.
export { hasTasksExtension, TASKS_EXTENSION };

/** Entries of an extension `Task`. */
const taskEntries = {
  taskId: v.string(),
  status: TaskStatusSchema,
  statusMessage: v.optional(v.string()),
  createdAt: v.string(),
  lastUpdatedAt: v.string(),
  ttlMs: v.nullable(IntegerSchema),
  pollIntervalMs: v.optional(IntegerSchema),
};

/** The answer to a request the server chose to run as a task. */
export const ExtensionCreateTaskResultSchema = looseObject({
  _meta: v.optional(MetaSchema),
  resultType: v.literal("task"),
  ...taskEntries,
});
/** The answer to a request the server chose to run as a task. */
export type ExtensionCreateTaskResult = v.InferOutput<typeof ExtensionCreateTaskResultSchema>;

const ErrorObjectSchema = looseObject({ code: IntegerSchema, message: v.string(), data: v.optional(v.unknown()) });

/**
 * A task with its status's payload inlined (`DetailedTask`): `inputRequests` when `input_required`,
 * `result` when `completed`, `error` when `failed`. Kept as one open object (the variants differ only in
 * which payload is required); {@link detailedTaskProblem} names a missing payload.
 */
export const DetailedTaskEntries = {
  ...taskEntries,
  inputRequests: v.optional(record(looseObject({ method: v.string() }))),
  result: v.optional(looseObject({})),
  error: v.optional(ErrorObjectSchema),
};

/** The answer to `tasks/get`. */
export const GetTaskResultSchema = looseObject({
  _meta: v.optional(MetaSchema),
  resultType: v.optional(v.literal("complete")),
  ...DetailedTaskEntries,
});
/** The answer to `tasks/get`. */
export type ExtensionDetailedTask = v.InferOutput<typeof GetTaskResultSchema>;

/** The payload a detailed task of `status` lacks, or undefined. */
export function detailedTaskProblem(task: ExtensionDetailedTask): string | undefined {
  if (task.status === "completed" && task.result === undefined) return "a completed task carries no result";
  if (task.status === "failed" && task.error === undefined) return "a failed task carries no error";
  if (task.status === "input_required" && task.inputRequests === undefined) return "an input_required task carries no inputRequests";
  return undefined;
}

/** The extension's request methods, each carrying the stateless `_meta` (`meta` is the revision's schema). */
export function tasksExtensionRequests(meta: v.GenericSchema): Record<"tasks/get" | "tasks/update" | "tasks/cancel", RequestSpec> {
  const id = { _meta: meta, taskId: v.string() };
  const ack = looseObject({ _meta: v.optional(MetaSchema), resultType: v.optional(v.literal("complete")) });
  return {
    "tasks/get": { from: "client", params: looseObject(id), result: GetTaskResultSchema },
    "tasks/update": { from: "client", params: looseObject({ ...id, inputResponses: record(looseObject({})) }), result: ack },
    "tasks/cancel": { from: "client", params: looseObject(id), result: ack },
  };
}

/** The extension's notification: a task's full state, pushed to a listen that named it. */
export const tasksExtensionNotifications: Record<"notifications/tasks", NotificationSpec> = {
  "notifications/tasks": { from: "server", params: looseObject({ _meta: v.optional(MetaSchema), ...DetailedTaskEntries }) },
};
