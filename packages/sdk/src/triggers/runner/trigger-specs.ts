/**
 * Trigger specs: the `triggers` block of `agentd.json` (and the CLI's `--interval`/`--cron`/`--subscribe`
 * flags) as plain, validated data, each with a stable id derived from what it watches, so the same config
 * yields the same trigger ids (and so the same run ids and job-store keys) after a restart.
 *
 * The cron switch is `capabilities.cron`: `"utc"` (default) is exactly 5-field cron in
 * UTC, no catch-up, no job store. There a `tz`, a `catchUp` other than `none` or a `jobStore` is a config
 * error naming the switch, never silently ignored.
 */
import type { AgentdConfig } from "../../config/types.generated.ts";
import { CronSchedule, type Concurrency } from "../index.ts";
import { parseCatchUp } from "../catch-up.ts";
import { parseConcurrency } from "../concurrency.ts";
import { validateTemplate } from "../template.ts";
import { AgentdError } from "../../wire/errors.ts";

/** `capabilities.cron`: `"utc"` (the default) or `"timezones"` (time zones, DST, catch-up, job store). */
export type CronEngine = "utc" | "timezones";

/** A resource subscription (reactive mode). */
export interface SubscriptionSpec {
  kind: "subscription";
  id: string;
  server: string;
  uri: string;
  instruction: string;
  /** The conversation each run continues (docs/conversations.md). */
  conversation?: string;
  coalesceMs?: number;
  concurrency?: Concurrency;
  /** Poll this often when the server cannot push updates (else such a trigger is unavailable). */
  pollIntervalMs?: number;
}

/** A cron schedule. */
export interface CronSpec {
  kind: "cron";
  id: string;
  cron: string;
  tz?: string;
  /** `"none" | "latest" | "all" | "all:N"` (time-zone cron only, except `none`). */
  catchUp?: string;
  instruction: string;
  /** The conversation each run continues (docs/conversations.md). */
  conversation?: string;
  concurrency?: Concurrency;
}

/** An interval: the pause between the end of one run and the start of the next (0 = immediately). */
export interface IntervalSpec {
  kind: "interval";
  id: string;
  everyMs: number;
  maxRuns?: number;
  instruction: string;
  /** The conversation each run continues (docs/conversations.md). */
  conversation?: string;
}

/** One trigger to build. */
export type TriggerSpec = SubscriptionSpec | CronSpec | IntervalSpec;

/** What `triggerSpecsFromConfig` returns. */
export interface TriggerPlan {
  specs: TriggerSpec[];
  /** The job store file (time-zone cron only). */
  jobStore?: string;
}

/** The stable id of a subscription trigger. */
export const subscriptionTriggerId = (server: string, uri: string): string => `sub:${server}:${uri}`;
/** The stable id of a schedule (also its job-store key). */
export const cronTriggerId = (cron: string, tz?: string): string => `cron:${cron.trim()}${tz ? ` ${tz}` : ""}`;
/** The id of the interval trigger (there is one at most). */
export const INTERVAL_TRIGGER_ID = "interval";

const v2Hint = 'set capabilities.cron to "timezones" in agentd.json (or pass --cron-timezones)';

/** Refuse time-zone-only schedule options under the UTC cron, naming the switch. Throws `E_CONFIG_INVALID`. */
export function checkCronEngine(where: string, spec: { tz?: string; catchUp?: string }, version: CronEngine): void {
  if (version === "timezones") return;
  if (spec.tz !== undefined)
    throw new AgentdError("E_CONFIG_INVALID", `${where}: tz needs the richer cron: ${v2Hint}; with "utc" schedules run in UTC`);
  if (spec.catchUp !== undefined && spec.catchUp !== "none")
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `${where}: catchUp needs the richer cron: ${v2Hint}; with "utc" missed ticks are not caught up`,
    );
}

/**
 * Check a spec completely before anything starts (no MCP server is spawned for a config that cannot run):
 * the cron expression and zone, the catch-up policy, the instruction's placeholders, the interval's
 * numbers. Throws `E_CONFIG_INVALID` with one clear line.
 */
export function validateTriggerSpec(spec: TriggerSpec, version: CronEngine): void {
  if (spec.kind === "cron") {
    checkCronEngine(`cron '${spec.cron}'`, spec, version);
    new CronSchedule({
      expression: spec.cron,
      tz: spec.tz,
      mode: version === "timezones" ? "timezones" : "utc",
    });
    if (spec.catchUp !== undefined) parseCatchUp(spec.catchUp);
  }
  if (spec.kind === "interval") {
    if (!(Number.isFinite(spec.everyMs) && spec.everyMs >= 0))
      throw new AgentdError("E_CONFIG_INVALID", "interval: every must be a duration ≥ 0");
    if (spec.maxRuns !== undefined && !(Number.isInteger(spec.maxRuns) && spec.maxRuns >= 1))
      throw new AgentdError("E_CONFIG_INVALID", "interval: maxRuns must be a whole number ≥ 1");
  }
  validateTemplate(spec.instruction, spec.kind, spec.id);
}

/** Give duplicate ids a `#2`, `#3` suffix (two subscriptions to one URI with different instructions). */
export function uniqueIds<T extends { id: string }>(specs: T[]): T[] {
  const seen = new Map<string, number>();
  return specs.map((s) => {
    const n = (seen.get(s.id) ?? 0) + 1;
    seen.set(s.id, n);
    return n === 1 ? s : { ...s, id: `${s.id}#${n}` };
  });
}

/**
 * Read the `triggers` block. Checks what the schema cannot: that each subscription names a configured
 * server, concurrency strings, and the cron switch. Throws `E_CONFIG_INVALID` with one clear line.
 */
export function triggerSpecsFromConfig(config: AgentdConfig, version: CronEngine = config.capabilities?.cron ?? "utc"): TriggerPlan {
  const t = config.triggers ?? {};
  const specs: TriggerSpec[] = [];
  (t.subscriptions ?? []).forEach((s, i) => {
    const where = `triggers.subscriptions[${i}]`;
    if (!config.mcpServers?.[s.server]) throw new AgentdError("E_CONFIG_INVALID", `${where}: server '${s.server}' is not in mcpServers`);
    specs.push({
      kind: "subscription",
      id: subscriptionTriggerId(s.server, s.uri),
      server: s.server,
      uri: s.uri,
      instruction: s.instruction,
      conversation: s.conversation,
      coalesceMs: s.coalesce,
      concurrency: s.concurrency === undefined ? undefined : parseConcurrency(s.concurrency),
      pollIntervalMs: s.pollInterval,
    });
  });
  (t.schedules ?? []).forEach((s, i) => {
    checkCronEngine(`triggers.schedules[${i}]`, s, version);
    specs.push({
      kind: "cron",
      id: cronTriggerId(s.cron, s.tz),
      cron: s.cron,
      tz: s.tz,
      catchUp: s.catchUp,
      instruction: s.instruction,
      conversation: s.conversation,
      concurrency: s.concurrency === undefined ? undefined : parseConcurrency(s.concurrency),
    });
  });
  if (t.interval)
    specs.push({
      kind: "interval",
      id: INTERVAL_TRIGGER_ID,
      everyMs: t.interval.every,
      maxRuns: t.interval.maxRuns,
      instruction: t.interval.instruction,
      conversation: t.interval.conversation,
    });
  (t.selfSubscribe?.servers ?? []).forEach((server, i) => {
    if (!config.mcpServers?.[server])
      throw new AgentdError("E_CONFIG_INVALID", `triggers.selfSubscribe.servers[${i}]: server '${server}' is not in mcpServers`);
  });
  if (t.jobStore !== undefined && version !== "timezones")
    throw new AgentdError("E_CONFIG_INVALID", `triggers.jobStore needs the richer cron: ${v2Hint}`);
  for (const spec of specs) validateTriggerSpec(spec, version);
  return { specs: uniqueIds(specs), jobStore: t.jobStore };
}
