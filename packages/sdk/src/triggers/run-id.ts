/**
 * Stable run ids. A run id is derived from the trigger and the event, so a re-delivered event (the same
 * resource state after a restart, the same cron tick caught up twice) yields the same id, and the run can
 * find its work "already done" (the id travels in `_meta` of every tools/call).
 *
 * Shape: `<kind prefix>-<16 hex>` (64 bits of SHA-256 over a JSON array of the parts, so no two part
 * lists can collide by concatenation).
 */
import { sha256 } from "../_internal/hash.ts";

/** SHA-256 of `parts` (JSON-encoded), as 16 hex characters. */
export function shortHash(...parts: ReadonlyArray<string | number>): string {
  return sha256(JSON.stringify(parts), "hex").slice(0, 16);
}

/** SHA-256 of arbitrary text, full hex: a resource state's content hash. */
export function contentHash(text: string): string {
  return sha256(text, "hex");
}

/** A resource state: the same trigger, URI and content (version) always give the same id. */
export const subscriptionRunId = (triggerId: string, uri: string, version: string): string =>
  `sub-${shortHash("subscription", triggerId, uri, version)}`;

/** A cron tick: the same schedule and scheduled instant always give the same id (catch-up included). */
export const cronRunId = (scheduleId: string, tickIso: string): string => `cron-${shortHash("cron", scheduleId, tickIso)}`;

/**
 * An interval run. Interval ticks are not events in the world: each is fresh work, and the process that
 * runs them is the only one that could repeat one. So the id is stable within one source instance (the
 * same sequence number gives the same id) and distinct across restarts and replicas, because `instance`
 * (start instant plus a random nonce, by default) differs.
 */
export const intervalRunId = (triggerId: string, instance: string, seq: number): string =>
  `int-${shortHash("interval", triggerId, instance, seq)}`;

/** A manual fire without a caller-given id (e.g. no `RUN_ID` in the environment). */
export const manualRunId = (triggerId: string, nonce: string): string => `man-${shortHash("manual", triggerId, nonce)}`;
