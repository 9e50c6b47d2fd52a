/** Small statistics for benchmark figures: min/median/max over repeated runs, percentiles of samples. */

/** The spread of one figure over its repeated runs. */
export interface Spread {
  min: number;
  median: number;
  max: number;
}

/** Min, median and max of `values` (at least one value). */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new RangeError("spread of no values");
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0] as number, median: median(sorted), max: sorted[sorted.length - 1] as number };
}

/** The median of an ascending array. */
function median(sorted: readonly number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The `p`-th percentile (0-100) of `samples`, nearest-rank. Sorts a copy. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new RangeError("percentile of no samples");
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** Round to `digits` significant digits, for tables and JSON that people read. */
export function sig(value: number, digits = 3): number {
  if (!Number.isFinite(value) || value === 0) return value;
  return Number(value.toPrecision(digits));
}
