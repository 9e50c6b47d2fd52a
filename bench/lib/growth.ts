/**
 * Growth curves: a quantity measured at several sizes of the work (runs in flight, resources, servers…),
 * and the growth fitted to it: flat within 25 % is constant; otherwise a least-squares line through the
 * log-log increments gives the exponent k of growth ≈ c·sizeᵏ, which names it — sub-linear, linear, worse.
 */
import { sig } from "./stats.ts";

/** One measured point: the value (median of its runs) at one size. */
export interface Point {
  x: number;
  y: number;
}

/** How a value grows with the size of the work. */
export type GrowthKind = "constant" | "sub-linear" | "linear" | "worse than linear";

/** The fitted growth of one series. */
export interface Growth {
  kind: GrowthKind;
  /** k of (value − value at the smallest size) ≈ c·(size − smallest size)ᵏ; 0 when constant. */
  exponent: number;
  /** Slope of the ordinary least-squares line value = a + b·size (value units per size unit). */
  slope: number;
  intercept: number;
}

/** Where a series sits in a chart: agentd, a peer, or a floor. */
export type Role = "ours" | "peer" | "floor";

/** One line of a growth chart. */
export interface Series {
  name: string;
  role: Role;
  points: Point[];
  growth?: Growth;
}

/** A growth curve (or several on the same axes), as the runner stores it in latest.json. */
export interface Curve {
  /** Unique across the results; the chart's file name. */
  id: string;
  title: string;
  x: { label: string; unit: string };
  y: { label: string; unit: string };
  series: Series[];
  /** A target judged on this curve, in words, with its verdict when the sizes it needs were measured. */
  target?: { text: string; actual?: number; met?: boolean };
  note?: string;
}

// A series whose largest value stays within this factor of its value at the smallest size does not grow.
const FLAT_WITHIN = 1.25;
// Exponent bands (below the first: constant): measurement noise on a loaded machine moves k by ±0.1 or so; these leave room for it.
const CONSTANT_BELOW = 0.2;
const LINEAR_FROM = 0.8;
const LINEAR_TO = 1.2;

/**
 * Fit the growth of `points` (at least two distinct sizes with positive values), or undefined. The
 * exponent is fitted to the increments over the smallest size — (x − x₀, y − y₀) — so a fixed part (a
 * process's start-up RSS) does not hide how the rest grows.
 */
export function fitGrowth(points: readonly Point[]): Growth | undefined {
  const usable = points.filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
  if (new Set(usable.map((p) => p.x)).size < 2) return undefined;
  const first = usable[0] as Point;
  const line = leastSquares(usable);
  const increments = usable
    .filter((p) => p.x > first.x && p.y > first.y)
    .map((p) => ({ x: Math.log(p.x - first.x), y: Math.log(p.y - first.y) }));
  const top = Math.max(...usable.map((p) => p.y));
  const flat = top <= first.y * FLAT_WITHIN || increments.length === 0;
  const exponent = flat ? 0 : increments.length === 1 ? 1 : leastSquares(increments).slope;
  // Increments that shrink as the size grows are noise around a constant, not growth.
  const kind: GrowthKind =
    flat || exponent < CONSTANT_BELOW
      ? "constant"
      : exponent < LINEAR_FROM
        ? "sub-linear"
        : exponent <= LINEAR_TO
          ? "linear"
          : "worse than linear";
  return { kind, exponent: sig(exponent), slope: sig(line.slope), intercept: sig(line.intercept) };
}

function leastSquares(points: readonly Point[]): { slope: number; intercept: number } {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.x - mx) * (p.y - my);
    sxx += (p.x - mx) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/** The singular of a size unit, for "per …": runs → run, children → child. */
export const perUnit = (unit: string): string => (unit === "children" ? "child" : unit.replace(/s$/, ""));

/** The growth in words, e.g. "linear (k = 1.02; +0.048 MB per run)"; `xUnit` is the plural size unit. */
export function describeGrowth(g: Growth, yUnit: string, xUnit: string): string {
  return `${g.kind} (k = ${g.exponent}; ${g.slope >= 0 ? "+" : ""}${g.slope} ${yUnit} per ${perUnit(xUnit)})`;
}

/** Fill in the fitted growth of every series of `curve`. */
export function withGrowth(curve: Curve): Curve {
  return {
    ...curve,
    series: curve.series.map((s) => ({ ...s, points: s.points.map((p) => ({ x: p.x, y: sig(p.y, 4) })), growth: fitGrowth(s.points) })),
  };
}
