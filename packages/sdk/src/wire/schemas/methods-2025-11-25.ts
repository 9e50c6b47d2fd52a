/**
 * Method table of revision 2025-11-25: every request and notification, who sends it, and its schemas.
 * Its typed maps (`RequestParamsOf<"tools/call">`, …) are declared in `../types/methods-2025-11-25.generated.ts`, generated
 * from this table.
 *
 * Only the lifecycle's schemas (initialize, ping, cancellation, progress) are made when this module loads. Every
 * other entry's `params` and `result` are getters that load their schema module (tools, resources, prompts,
 * sampling, …) on first read: a server whose sessions only initialize and wait never makes those schemas, which
 * were the bulk of an idle server's start (bench/NOTES.md, idle sessions). The codec reads a getter once, when it
 * first validates that method, and keeps the schema; the entry object's type is what it was.
 */
import { EmptyResultSchema, NotificationParamsSchema, PaginatedRequestParamsSchema, RequestParamsSchema } from "./base.ts";
import {
  CancelledNotificationParamsSchema,
  InitializeRequestParamsSchema,
  InitializeResultSchema,
  ProgressNotificationParamsSchema,
} from "./lifecycle.ts";
import { lazyTable, type RevisionTable } from "./method-table.ts";

// Synchronous `require`s, one place each: validation is synchronous, and a bundler turns each into a module
// run on its first call (an `import` would be hoisted to the bundle's top and loaded at start again).
const tools = () => require("./tools.ts") as typeof import("./tools.ts");
const resources = () => require("./resources.ts") as typeof import("./resources.ts");
const prompts = () => require("./prompts.ts") as typeof import("./prompts.ts");
const completion = () => require("./completion.ts") as typeof import("./completion.ts");
const logging = () => require("./logging.ts") as typeof import("./logging.ts");
const sampling = () => require("./sampling.ts") as typeof import("./sampling.ts");
const elicitation = () => require("./elicitation.ts") as typeof import("./elicitation.ts");
const roots = () => require("./roots.ts") as typeof import("./roots.ts");
const tasks = () => require("./tasks.ts") as typeof import("./tasks.ts");

/** Request methods of 2025-11-25. */
export const requests_2025_11_25 = {
  initialize: { from: "client", params: InitializeRequestParamsSchema, result: InitializeResultSchema },
  ping: { from: "both", params: RequestParamsSchema, result: EmptyResultSchema },
  "resources/list": {
    from: "client",
    params: PaginatedRequestParamsSchema,
    get result() {
      return resources().ListResourcesResultSchema;
    },
  },
  "resources/templates/list": {
    from: "client",
    params: PaginatedRequestParamsSchema,
    get result() {
      return resources().ListResourceTemplatesResultSchema;
    },
  },
  "resources/read": {
    from: "client",
    get params() {
      return resources().ReadResourceRequestParamsSchema;
    },
    get result() {
      return resources().ReadResourceResultSchema;
    },
  },
  "resources/subscribe": {
    from: "client",
    get params() {
      return resources().SubscribeRequestParamsSchema;
    },
    result: EmptyResultSchema,
  },
  "resources/unsubscribe": {
    from: "client",
    get params() {
      return resources().UnsubscribeRequestParamsSchema;
    },
    result: EmptyResultSchema,
  },
  "prompts/list": {
    from: "client",
    params: PaginatedRequestParamsSchema,
    get result() {
      return prompts().ListPromptsResultSchema;
    },
  },
  "prompts/get": {
    from: "client",
    get params() {
      return prompts().GetPromptRequestParamsSchema;
    },
    get result() {
      return prompts().GetPromptResultSchema;
    },
  },
  "tools/list": {
    from: "client",
    params: PaginatedRequestParamsSchema,
    get result() {
      return tools().ListToolsResultSchema;
    },
  },
  "tools/call": {
    from: "client",
    get params() {
      return tools().CallToolRequestParamsSchema;
    },
    get result() {
      return tools().CallToolResultSchema;
    },
    taskAugmentable: true,
  },
  "logging/setLevel": {
    from: "client",
    get params() {
      return logging().SetLevelRequestParamsSchema;
    },
    result: EmptyResultSchema,
  },
  "completion/complete": {
    from: "client",
    get params() {
      return completion().CompleteRequestParamsSchema;
    },
    get result() {
      return completion().CompleteResultSchema;
    },
  },
  "tasks/get": {
    from: "both",
    get params() {
      return tasks().GetTaskRequestParamsSchema;
    },
    get result() {
      return tasks().GetTaskResultSchema;
    },
  },
  "tasks/result": {
    from: "both",
    get params() {
      return tasks().GetTaskPayloadRequestParamsSchema;
    },
    get result() {
      return tasks().GetTaskPayloadResultSchema;
    },
  },
  "tasks/list": {
    from: "both",
    params: PaginatedRequestParamsSchema,
    get result() {
      return tasks().ListTasksResultSchema;
    },
  },
  "tasks/cancel": {
    from: "both",
    get params() {
      return tasks().CancelTaskRequestParamsSchema;
    },
    get result() {
      return tasks().CancelTaskResultSchema;
    },
  },
  "sampling/createMessage": {
    from: "server",
    get params() {
      return sampling().CreateMessageRequestParamsSchema;
    },
    get result() {
      return sampling().CreateMessageResultSchema;
    },
    taskAugmentable: true,
  },
  "roots/list": {
    from: "server",
    params: RequestParamsSchema,
    get result() {
      return roots().ListRootsResultSchema;
    },
  },
  "elicitation/create": {
    from: "server",
    get params() {
      return elicitation().ElicitRequestParamsSchema;
    },
    get result() {
      return elicitation().ElicitResultSchema;
    },
    taskAugmentable: true,
  },
} as const;

/** Notification methods of 2025-11-25. */
export const notifications_2025_11_25 = {
  "notifications/initialized": { from: "client", params: NotificationParamsSchema },
  "notifications/cancelled": { from: "both", params: CancelledNotificationParamsSchema },
  "notifications/progress": { from: "both", params: ProgressNotificationParamsSchema },
  "notifications/tasks/status": {
    from: "both",
    get params() {
      return tasks().TaskStatusNotificationParamsSchema;
    },
  },
  "notifications/roots/list_changed": { from: "client", params: NotificationParamsSchema },
  "notifications/resources/list_changed": { from: "server", params: NotificationParamsSchema },
  "notifications/resources/updated": {
    from: "server",
    get params() {
      return resources().ResourceUpdatedNotificationParamsSchema;
    },
  },
  "notifications/prompts/list_changed": { from: "server", params: NotificationParamsSchema },
  "notifications/tools/list_changed": { from: "server", params: NotificationParamsSchema },
  "notifications/message": {
    from: "server",
    get params() {
      return logging().LoggingMessageNotificationParamsSchema;
    },
  },
  "notifications/elicitation/complete": {
    from: "server",
    get params() {
      return elicitation().ElicitationCompleteNotificationParamsSchema;
    },
  },
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
