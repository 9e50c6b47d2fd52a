/**
 * The `triggers` block of `agentd.json`: resource subscriptions, cron schedules, an interval, the cron job
 * store and runs subscribing the agent themselves.
 */
import * as v from "valibot";
import { duration, positiveInt } from "./schema-values.ts";
import { SERVER_NAME } from "./servers-schema.ts";

const concurrency = v.union([
  v.picklist(["skip", "queue"]),
  v.pipe(v.string(), v.regex(/^parallel:\d+$/, '"skip", "queue" or "parallel:N"')),
]);

/** A conversation each run of a trigger continues (docs/conversations.md): the same id rules as `agentd run --conversation`. */
const conversationName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit"),
);

/** A trigger on an MCP resource (`server`, `uri`): a run of `instruction` starts when the server reports the resource updated (coalesced, or polled when the server cannot notify). */
export const SubscriptionTriggerSchema = v.strictObject({
  server: v.string(),
  uri: v.string(),
  instruction: v.string(),
  /** Each run continues this conversation, so it sees what the earlier runs did (docs/conversations.md). */
  conversation: v.optional(conversationName),
  coalesce: v.optional(duration),
  concurrency: v.optional(concurrency),
  /** Poll this often when the server cannot push updates. */
  pollInterval: v.optional(duration),
});

/** A cron trigger: the schedule (`cron`), its time zone (`tz`), what to do with missed ticks (`catchUp`), the instruction, and how overlapping runs are handled. */
export const ScheduleTriggerSchema = v.strictObject({
  cron: v.string(),
  tz: v.optional(v.string()),
  catchUp: v.optional(v.union([v.picklist(["none", "latest"]), v.pipe(v.string(), v.regex(/^all(:\d+)?$/))])),
  instruction: v.string(),
  /** Each run continues this conversation, so it sees what the earlier runs did (docs/conversations.md). */
  conversation: v.optional(conversationName),
  concurrency: v.optional(concurrency),
});

/** A trigger that runs `instruction` every `every` (a duration such as `"5m"`), at most `maxRuns` times when set. */
export const IntervalTriggerSchema = v.strictObject({
  every: duration,
  instruction: v.string(),
  /** Each run continues this conversation, so it sees what the earlier runs did (docs/conversations.md). */
  conversation: v.optional(conversationName),
  maxRuns: v.optional(positiveInt),
});

/** The `triggers` block: resource subscriptions, cron schedules, an interval, and where the cron job store lives. */
export const TriggersSchema = v.strictObject({
  subscriptions: v.optional(v.array(SubscriptionTriggerSchema)),
  schedules: v.optional(v.array(ScheduleTriggerSchema)),
  interval: v.optional(IntervalTriggerSchema),
  /** Where schedule state (last fire per schedule) is kept, for the time-zone cron's catch-up across restarts. */
  jobStore: v.optional(v.string()),
  /** Runs may subscribe the agent to resources themselves (tools agent.subscribe / agent.unsubscribe). Absent: not offered. */
  selfSubscribe: v.optional(
    v.strictObject({
      /** Most self-arranged subscriptions at once (default 8). */
      max: v.optional(positiveInt),
      /** The servers runs may subscribe to (default: every configured server). */
      servers: v.optional(v.array(SERVER_NAME)),
      /** Poll this often a server that cannot push updates (else such a server is refused). */
      pollInterval: v.optional(duration),
    }),
  ),
});
