/**
 * `@agentd/sdk/triggers`: what wakes agentd up, as building blocks. Every source (an MCP resource
 * subscription, an interval, a cron schedule, a manual fire) emits events into one {@link TriggerRouter},
 * which coalesces, applies each trigger's concurrency policy, renders the instruction template and runs,
 * with stable run ids. An agent's triggers from config are `AgentTriggers` (the root, `@agentd/sdk/agent`).
 *
 * @module @agentd/sdk/triggers
 */
export type {
  TriggerKind,
  TriggerEvent,
  RunOutcome,
  EmitResult,
  Emit,
  SourceContext,
  EventSource,
  Concurrency,
  TriggerDefinition,
} from "./types.ts";
export {
  TriggerRouter,
  validateTrigger,
  type TriggerRouterOptions,
  type TriggerRouterEvents,
  type RunFunction,
  type RunContext,
  type StopOptions,
} from "./router.ts";
export type { DropReason } from "./trigger-slot.ts";
export {
  SubscriptionSource,
  type SubscribableClient,
  type SubscriptionSourceOptions,
  type ResourceContents,
} from "./subscription-source.ts";
export { IntervalSource, type IntervalSourceOptions } from "./interval-source.ts";
export { ManualSource, type ManualFireOptions } from "./manual-source.ts";
export { CronSchedule, type CronMode, type CronScheduleOptions } from "./cron-schedule.ts";
export { CronSource, type CronSourceOptions } from "./cron-source.ts";
export type { CatchUp } from "./catch-up.ts";
export { systemClock, type Clock, type TimerHandle } from "./clock.ts";
export { MemoryJobStore, type JobStore } from "./job-store.ts";
export { FileJobStore } from "./file-job-store.ts";
export { StoreJobStore, type StoreJobStoreOptions, type JobDocumentStore } from "./store-job-store.ts";
export { contentHash, subscriptionRunId, cronRunId, intervalRunId, manualRunId } from "./run-id.ts";
