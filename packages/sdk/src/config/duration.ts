/**
 * Durations as people write them in config and flags: "500ms", "2s", "5m", "1h30m", "1d", or a bare number
 * of milliseconds. `0` is a valid duration (interval D=0 re-enters immediately).
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;

/**
 * Parse a duration into milliseconds, or return undefined when it is not one. Any finite length is fine
 * ("30d" too: timers wait long delays in chunks, see `_internal/timer.ts`); one too big to be a number is not.
 */
export function parseDuration(input: string | number): number | undefined {
  if (typeof input === "number") return Number.isFinite(input) && input >= 0 ? input : undefined;
  const s = input.trim();
  if (/^\d+$/.test(s)) return finite(Number(s));
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

const finite = (ms: number): number | undefined => (Number.isFinite(ms) ? ms : undefined);

/** Render milliseconds compactly ("1m30s", "250ms"), for messages and telemetry. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [["d", 86400], ["h", 3600], ["m", 60], ["s", 1]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join("");
}
