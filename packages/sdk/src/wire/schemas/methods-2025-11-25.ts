/**
 * Method table of revision 2025-11-25: every request and notification, who sends it, and its schemas.
 * Its typed maps (`RequestParamsOf<"tools/call">`, …) are declared in `../types/methods-2025-11-25.ts`, generated
 * from this table.
 */
import { EmptyResultSchema, NotificationParamsSchema, PaginatedRequestParamsSchema, RequestParamsSchema } from "./base.ts";
import {
  CancelledNotificationParamsSchema,
  InitializeRequestParamsSchema,
  InitializeResultSchema,
  ProgressNotificationParamsSchema,
} from "./lifecycle.ts";
import { CallToolRequestParamsSchema, CallToolResultSchema, ListToolsResultSchema } from "./tools.ts";
import {
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ReadResourceRequestParamsSchema,
  ReadResourceResultSchema,
  ResourceUpdatedNotificationParamsSchema,
  SubscribeRequestParamsSchema,
  UnsubscribeRequestParamsSchema,
} from "./resources.ts";
import { GetPromptRequestParamsSchema, GetPromptResultSchema, ListPromptsResultSchema } from "./prompts.ts";
import { CompleteRequestParamsSchema, CompleteResultSchema } from "./completion.ts";
import { LoggingMessageNotificationParamsSchema, SetLevelRequestParamsSchema } from "./logging.ts";
import { CreateMessageRequestParamsSchema, CreateMessageResultSchema } from "./sampling.ts";
import { ElicitationCompleteNotificationParamsSchema, ElicitRequestParamsSchema, ElicitResultSchema } from "./elicitation.ts";
import { ListRootsResultSchema } from "./roots.ts";
import {
  CancelTaskRequestParamsSchema,
  CancelTaskResultSchema,
  GetTaskPayloadRequestParamsSchema,
  GetTaskPayloadResultSchema,
  GetTaskRequestParamsSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  TaskStatusNotificationParamsSchema,
} from "./tasks.ts";
import { lazyTable, type RevisionTable } from "./method-table.ts";

/** Request methods of 2025-11-25. */
export const requests_2025_11_25 = {
  initialize: { from: "client", params: InitializeRequestParamsSchema, result: InitializeResultSchema },
  ping: { from: "both", params: RequestParamsSchema, result: EmptyResultSchema },
  "resources/list": { from: "client", params: PaginatedRequestParamsSchema, result: ListResourcesResultSchema },
  "resources/templates/list": {
    from: "client",
    params: PaginatedRequestParamsSchema,
    result: ListResourceTemplatesResultSchema,
  },
  "resources/read": { from: "client", params: ReadResourceRequestParamsSchema, result: ReadResourceResultSchema },
  "resources/subscribe": { from: "client", params: SubscribeRequestParamsSchema, result: EmptyResultSchema },
  "resources/unsubscribe": { from: "client", params: UnsubscribeRequestParamsSchema, result: EmptyResultSchema },
  "prompts/list": { from: "client", params: PaginatedRequestParamsSchema, result: ListPromptsResultSchema },
  "prompts/get": { from: "client", params: GetPromptRequestParamsSchema, result: GetPromptResultSchema },
  "tools/list": { from: "client", params: PaginatedRequestParamsSchema, result: ListToolsResultSchema },
  "tools/call": {
    from: "client",
    params: CallToolRequestParamsSchema,
    result: CallToolResultSchema,
    taskAugmentable: true,
  },
  "logging/setLevel": { from: "client", params: SetLevelRequestParamsSchema, result: EmptyResultSchema },
  "completion/complete": { from: "client", params: CompleteRequestParamsSchema, result: CompleteResultSchema },
  "tasks/get": { from: "both", params: GetTaskRequestParamsSchema, result: GetTaskResultSchema },
  "tasks/result": { from: "both", params: GetTaskPayloadRequestParamsSchema, result: GetTaskPayloadResultSchema },
  "tasks/list": { from: "both", params: PaginatedRequestParamsSchema, result: ListTasksResultSchema },
  "tasks/cancel": { from: "both", params: CancelTaskRequestParamsSchema, result: CancelTaskResultSchema },
  "sampling/createMessage": {
    from: "server",
    params: CreateMessageRequestParamsSchema,
    result: CreateMessageResultSchema,
    taskAugmentable: true,
  },
  "roots/list": { from: "server", params: RequestParamsSchema, result: ListRootsResultSchema },
  "elicitation/create": {
    from: "server",
    params: ElicitRequestParamsSchema,
    result: ElicitResultSchema,
    taskAugmentable: true,
  },
} as const;

/** Notification methods of 2025-11-25. */
export const notifications_2025_11_25 = {
  "notifications/initialized": { from: "client", params: NotificationParamsSchema },
  "notifications/cancelled": { from: "both", params: CancelledNotificationParamsSchema },
  "notifications/progress": { from: "both", params: ProgressNotificationParamsSchema },
  "notifications/tasks/status": { from: "both", params: TaskStatusNotificationParamsSchema },
  "notifications/roots/list_changed": { from: "client", params: NotificationParamsSchema },
  "notifications/resources/list_changed": { from: "server", params: NotificationParamsSchema },
  "notifications/resources/updated": { from: "server", params: ResourceUpdatedNotificationParamsSchema },
  "notifications/prompts/list_changed": { from: "server", params: NotificationParamsSchema },
  "notifications/tools/list_changed": { from: "server", params: NotificationParamsSchema },
  "notifications/message": { from: "server", params: LoggingMessageNotificationParamsSchema },
  "notifications/elicitation/complete": { from: "server", params: ElicitationCompleteNotificationParamsSchema },
} as const;

/** The 2025-11-25 revision table (built on first use). */
export const table_2025_11_25 = lazyTable(
  () =>
    ({
      revision: "2025-11-25",
      batches: false,
      stateful: true,
      requests: requests_2025_11_25,
      notifications: notifications_2025_11_25,
    }) as const satisfies RevisionTable,
);
