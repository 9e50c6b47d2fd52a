/**
 * The shape of benchmark results: figures (one measured quantity of one subject, repeated runs), their
 * ratios to a peer and to a floor, and the targets they are judged by. `latest.json` is a list of these.
 */
import type { Curve } from "./growth.ts";
import { sig, spread } from "./stats.ts";

/** The benchmarks, in the order they run. */
export const BENCH_NAMES = ["codec", "stdio", "http", "startup", "loop", "growth", "tls", "tasks", "approvals"] as const;
/** One benchmark's name. */
export type BenchName = (typeof BENCH_NAMES)[number];

/** How big a run is: the full bench, a quicker pass, or the smoke test's tiny configuration. */
export type Mode = "full" | "quick" | "tiny";

/** A target a figure is judged by: its ratio to the peer or floor, or its own value. */
export interface Target {
  /** What the issue asks, in words, e.g. "≥ 3× official SDK". */
  text: string;
  against: "peer" | "floor" | "value";
  /** With `against: "peer"`: judge against this figure instead of the figure's own peer. */
  peerFigure?: string;
  op: ">=" | "<=";
  value: number;
}

/** A judged target. `met` is undefined when the figure it needs is missing. */
export interface TargetResult extends Target {
  actual?: number;
  met?: boolean;
}

/**
 * Another figure a figure is read against beside its floor: a reference, never a target (e.g. a floor that
 * also makes the reads a server is required to make, whose own cost says how much of the gap to the bare
 * floor is out of any server's reach).
 */
export interface Reference {
  /** Id of the reference figure. */
  figure: string;
  /** How the reference reads in a sentence, e.g. "the floor with the required reads". */
  name: string;
}

/** What a benchmark measures for one subject: raw runs plus how to compare them. */
export interface FigureSpec {
  /** Unique within the bench, e.g. `small.ours`. */
  id: string;
  /** The row group, e.g. "small messages (6)". */
  group: string;
  /** Who was measured, e.g. "agentd", "official SDK 1.32.2", "floor: JSON.parse/stringify". */
  subject: string;
  /** e.g. "msgs/s", "p50 latency", "RSS". */
  metric: string;
  unit: string;
  better: "higher" | "lower";
  /** One value per repeated run. */
  runs: number[];
  /** Id of the figure of the peer this one is compared with. */
  peer?: string;
  /** Id of the floor figure. */
  floor?: string;
  targets?: Target[];
  /** Figures this one is also compared with (shown beside the floor ratio, judged by nothing). */
  references?: Reference[];
  note?: string;
}

/** A finished figure: spread, ratios and judged targets. */
export interface Figure extends FigureSpec {
  bench: BenchName;
  min: number;
  median: number;
  max: number;
  /** This figure's median over the peer's median. */
  vsPeer?: number;
  /** This figure's median over the floor's median. */
  vsFloor?: number;
  /** This figure's median over each measured reference's median. */
  vsReferences?: Array<Reference & { ratio: number }>;
  judged?: TargetResult[];
}

/** Everything one benchmark produced. */
export interface BenchResult {
  bench: BenchName;
  mode: Mode;
  /** The exact command that reproduces it. */
  command: string;
  seconds: number;
  figures: Figure[];
  /** Growth curves (the growth benchmark): each plotted, with its fitted growth. */
  curves?: Curve[];
  /** Facts the reader needs beside the numbers (method, ceilings, caveats). */
  notes: string[];
}

/** Compute spreads, ratios and verdicts for the specs of one bench. */
export function finishFigures(bench: BenchName, specs: readonly FigureSpec[]): Figure[] {
  const base = specs
    .filter((s) => s.runs.length > 0)
    .map((s) => ({ ...s, bench, runs: s.runs.map((r) => sig(r, 4)), ...spread(s.runs) }) as Figure);
  const byId = new Map(base.map((f) => [f.id, f]));
  for (const f of base) {
    const peer = f.peer === undefined ? undefined : byId.get(f.peer);
    const floor = f.floor === undefined ? undefined : byId.get(f.floor);
    if (peer && peer.median > 0) f.vsPeer = sig(f.median / peer.median);
    if (floor && floor.median > 0) f.vsFloor = sig(f.median / floor.median);
    if (f.references) {
      const refs = f.references.flatMap((r) => {
        const ref = byId.get(r.figure);
        return ref && ref.median > 0 ? [{ ...r, ratio: sig(f.median / ref.median) }] : [];
      });
      if (refs.length) f.vsReferences = refs;
    }
    if (f.targets) {
      f.judged = f.targets.map((t) => {
        const other = t.peerFigure === undefined ? undefined : byId.get(t.peerFigure);
        const vsOther = other && other.median > 0 ? sig(f.median / other.median) : undefined;
        const actual =
          t.against === "peer" ? (t.peerFigure === undefined ? f.vsPeer : vsOther) : t.against === "floor" ? f.vsFloor : f.median;
        if (actual === undefined) return { ...t };
        return { ...t, actual, met: t.op === ">=" ? actual >= t.value : actual <= t.value };
      });
    }
    f.min = sig(f.min, 4);
    f.median = sig(f.median, 4);
    f.max = sig(f.max, 4);
  }
  return base;
}
