/**
 * Durations as people write them in config, flags and environment variables: "500ms", "2s", "5m",
 * "1h30m", "1d". A unit is required: a bare number was once read as milliseconds, so `--interval 5` ran
 * back to back every few milliseconds. Only zero ("0", or 0 in JSON) needs none — it is zero in any unit
 * (interval D=0 re-enters immediately). Programmatic fields that say their unit (`deadlineMs`) stay numbers.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;

/** The forms a duration takes, for the one line that refuses a value that is not one. */
export const DURATION_FORMS = 'a duration with a unit: ms, s, m, h or d, e.g. "500ms", "30s", "10m", "1h30m"';

/**
 * Parse a duration into milliseconds, or return undefined when it is not one. Any finite length is fine
 * ("30d" too: timers wait long delays in chunks, see `_internal/timer.ts`); one too big to be a number is not.
 */
export function parseDuration(input: string | number): number | undefined {
  if (typeof input === "number") return input === 0 ? 0 : undefined;
  const s = input.trim();
  if (/^0+(\.0+)?$/.test(s)) return 0;
  if (s.length === 0) return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let end = 0;
  for (let m = PART.exec(s); m !== null; m = PART.exec(s)) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    end = PART.lastIndex;
  }
  return end === s.length ? finite(Math.round(total)) : undefined;
}

/**
 * Why `input` is not a duration, as the end of one line (`--interval: …`). The value itself is not repeated
 * (config errors never echo what they got: it may have come from a secret's variable).
 */
export function durationProblem(input: string | number): string {
  if (/^\d+(\.\d+)?$/.test(String(input).trim())) return "a bare number has no unit: put ms, s, m, h or d after it";
  return `expected ${DURATION_FORMS}`;
}

const finite = (ms: number): number | undefined => (Number.isFinite(ms) ? ms : undefined);

/** Render milliseconds compactly ("1m30s", "250ms"), for messages and telemetry. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join("");
}
