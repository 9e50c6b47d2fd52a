/**
 * Triggers: what wakes agentd up. Every source (an MCP resource subscription, an interval, a cron
 * schedule, a manual fire) emits events into one {@link TriggerRouter}, which coalesces, applies each
 * trigger's concurrency policy, renders the instruction template and runs, with stable run ids.
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
export { parseConcurrency } from "./concurrency.ts";
export { validateTemplate, renderTemplate, placeholdersFor } from "./template.ts";
export { shortHash, contentHash, subscriptionRunId, cronRunId, intervalRunId, manualRunId } from "./run-id.ts";
export { systemClock, MAX_TIMEOUT_MS, type Clock, type TimerHandle } from "./clock.ts";
export { FakeClock } from "./fake-clock.ts";
export {
  SubscriptionSource,
  concernsResource,
  type SubscribableClient,
  type SubscriptionSourceOptions,
  type ResourceContents,
} from "./subscription-source.ts";
export { IntervalSource, type IntervalSourceOptions } from "./interval-source.ts";
export { ManualSource, type ManualFireOptions } from "./manual-source.ts";
export { CronSchedule, CRON_MODES, isTimeZone, type CronMode, type CronScheduleOptions } from "./cron-schedule.ts";
export { CronSource, type CronSourceOptions } from "./cron-source.ts";
export { parseCatchUp, missedTicks, DEFAULT_CATCH_UP_LIMIT, type CatchUp } from "./catch-up.ts";
export { MemoryJobStore, type JobStore } from "./job-store.ts";
export { FileJobStore } from "./file-job-store.ts";
export { StoreJobStore, type StoreJobStoreOptions, type JobDocumentStore } from "./store-job-store.ts";
