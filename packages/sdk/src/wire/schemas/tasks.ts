/**
 * Tasks (revision 2025-11-25): task-augmented requests return a `CreateTaskResult`; the requester polls
 * `tasks/get`, fetches `tasks/result`, lists with `tasks/list`, cancels with `tasks/cancel`, and may receive
 * `notifications/tasks/status`. Both sides may be the task receiver.
 */
import * as v from "valibot";
import { looseObject } from "./open-object.ts";
import { IntegerSchema, MetaSchema, paginatedResultEntries, RequestMetaSchema } from "./base.ts";

/** The state of a task. `completed`, `failed` and `cancelled` are terminal. */
export const TaskStatusSchema = v.picklist(["working", "input_required", "completed", "failed", "cancelled"]);
/** The state of a task. */
export type TaskStatus = v.InferOutput<typeof TaskStatusSchema>;

/** Entries of a `Task` (spread into results and the status notification). */
export const taskEntries = {
  taskId: v.string(),
  status: TaskStatusSchema,
  statusMessage: v.optional(v.string()),
  createdAt: v.string(),
  lastUpdatedAt: v.string(),
  /** Retention from creation in ms; `null` means unlimited. Required (errata: integer or null). */
  ttl: v.nullable(IntegerSchema),
  pollInterval: v.optional(IntegerSchema),
};

/** Data associated with a task. */
export const TaskSchema = looseObject(taskEntries);
/** Data associated with a task. */
export type Task = v.InferOutput<typeof TaskSchema>;

/** The immediate answer to a task-augmented request. */
export const CreateTaskResultSchema = looseObject({ _meta: v.optional(MetaSchema), task: TaskSchema });
/** The immediate answer to a task-augmented request. */
export type CreateTaskResult = v.InferOutput<typeof CreateTaskResultSchema>;

/** Params of `tasks/get`, `tasks/result` and `tasks/cancel`: one task id. */
export const TaskIdParamsSchema = looseObject({ _meta: v.optional(RequestMetaSchema), taskId: v.string() });
/** Params of `tasks/get`. */
export const GetTaskRequestParamsSchema = TaskIdParamsSchema;
/** Params of `tasks/get`. */
export type GetTaskRequestParams = v.InferOutput<typeof TaskIdParamsSchema>;
/** Params of `tasks/result`. */
export const GetTaskPayloadRequestParamsSchema = TaskIdParamsSchema;
/** Params of `tasks/result`. */
export type GetTaskPayloadRequestParams = v.InferOutput<typeof TaskIdParamsSchema>;
/** Params of `tasks/cancel`. */
export const CancelTaskRequestParamsSchema = TaskIdParamsSchema;
/** Params of `tasks/cancel`. */
export type CancelTaskRequestParams = v.InferOutput<typeof TaskIdParamsSchema>;

/** The answer to `tasks/get`: the task itself. */
export const GetTaskResultSchema = looseObject({ _meta: v.optional(MetaSchema), ...taskEntries });
/** The answer to `tasks/get`. */
export type GetTaskResult = v.InferOutput<typeof GetTaskResultSchema>;

/** The answer to `tasks/cancel`: the task, now cancelled. */
export const CancelTaskResultSchema = GetTaskResultSchema;
/** The answer to `tasks/cancel`. */
export type CancelTaskResult = GetTaskResult;

/** The answer to `tasks/result`: the underlying request's result (e.g. a `CallToolResult`), so open. */
export const GetTaskPayloadResultSchema = looseObject({ _meta: v.optional(MetaSchema) });
/** The answer to `tasks/result`. */
export type GetTaskPayloadResult = v.InferOutput<typeof GetTaskPayloadResultSchema>;

/** The answer to `tasks/list`. */
export const ListTasksResultSchema = looseObject({ ...paginatedResultEntries, tasks: v.array(TaskSchema) });
/** The answer to `tasks/list`. */
export type ListTasksResult = v.InferOutput<typeof ListTasksResultSchema>;

/** Params of `notifications/tasks/status`: the full task. */
export const TaskStatusNotificationParamsSchema = looseObject({ _meta: v.optional(MetaSchema), ...taskEntries });
/** Params of `notifications/tasks/status`. */
export type TaskStatusNotificationParams = v.InferOutput<typeof TaskStatusNotificationParamsSchema>;
