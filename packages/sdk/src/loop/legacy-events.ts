/**
 * The run events' names before the loop, `agent.stream()` and telemetry spoke one vocabulary, kept for one
 * minor version behind an explicit opt-in: a listener written against the old names is wrapped once
 * (`onEvent: withLegacyEventNames(listener)`, `agent.on(withLegacyEventNames(listener))`) and receives each
 * event exactly once, under its old name and in its old shape — never both names, so nothing is counted
 * twice. A listener that is not wrapped receives the current names only.
 *
 * | old name (`onEvent` before)  | current name          |
 * |------------------------------|-----------------------|
 * | `model-request`              | `model-start`         |
 * | `model-response`             | `model-end`           |
 * | `tool-call`                  | `tool-call-start`     |
 * | `tool-result`                | `tool-call-end`       |
 * | `tool-progress`              | `tool-call-progress`  |
 * | `budget`                     | `budget-warning`      |
 *
 * `run-start`, `text-delta`, `reasoning-delta` and `run-end` did not change.
 */
import type { RunEvent } from "./events.ts";

/** The old name of each renamed event type. */
const OLD_NAMES = {
  "model-start": "model-request",
  "model-end": "model-response",
  "tool-call-start": "tool-call",
  "tool-call-end": "tool-result",
  "tool-call-progress": "tool-progress",
  "budget-warning": "budget",
} as const satisfies Partial<Record<RunEvent["type"], string>>;

type Renamed = keyof typeof OLD_NAMES;
type Rename<E> = E extends { type: infer T } ? (T extends Renamed ? Omit<E, "type"> & { type: (typeof OLD_NAMES)[T] } : E) : never;

/**
 * A run event under the names used before one vocabulary (see the module header for the table).
 * @deprecated Switch on {@link RunEvent}'s names (`model-start`, `model-end`, `tool-call-start`,
 * `tool-call-end`, `tool-call-progress`, `budget-warning`); the old names go in the next minor version.
 */
export type LegacyRunEvent = Rename<RunEvent>;

/**
 * Wrap a listener written against the old event names: it receives every event once, renamed back.
 * @deprecated Rename the cases of your listener instead (the module header has the table); this wrapper
 * goes in the next minor version.
 */
export function withLegacyEventNames(listener: (event: LegacyRunEvent) => void): (event: RunEvent) => void {
  return (event) => {
    const old = (OLD_NAMES as Partial<Record<RunEvent["type"], LegacyRunEvent["type"]>>)[event.type];
    listener((old ? { ...event, type: old } : event) as LegacyRunEvent);
  };
}
