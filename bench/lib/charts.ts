/**
 * The charts of a result file: one bar chart per comparison group (every subject of a figure group that has
 * a peer or a floor, side by side) and one line chart per growth curve. The runner writes them to
 * bench/results/charts/ and the README shows them beside the tables.
 */
import type { BenchResult, Figure } from "./figures.ts";
import type { Curve, Role } from "./growth.ts";
import type { ResultFile } from "./report.ts";
import { barChart, lineChart } from "./svg.ts";

/** One chart: its file name under results/charts/, its title, and its SVG text. */
export interface Chart {
  file: string;
  title: string;
  svg: string;
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 60);

/** The chart file of a figure group. */
export const groupChartFile = (bench: string, group: string) => `${bench}-${slug(group)}.svg`;
/** The chart file of a growth curve. */
export const curveChartFile = (curve: Curve) => `growth-${slug(curve.id)}.svg`;

const roleOf = (f: Figure, ours: Set<string>): Role => (f.subject.startsWith("floor") ? "floor" : ours.has(f.id) ? "ours" : "peer");

/** The comparison groups of one bench: groups where some figure has a peer or a floor measured. */
export function comparisonGroups(b: BenchResult): Array<{ group: string; figures: Figure[] }> {
  const groups = new Map<string, Figure[]>();
  for (const f of b.figures) groups.set(f.group, [...(groups.get(f.group) ?? []), f]);
  return [...groups]
    .filter(([, fs]) => fs.length > 1 && fs.some((f) => f.vsPeer !== undefined || f.vsFloor !== undefined))
    .map(([group, figures]) => ({ group, figures }));
}

/** Every chart of `file`. */
export function chartsOf(file: ResultFile): Chart[] {
  const charts: Chart[] = [];
  for (const b of Object.values(file.benches)) {
    if (!b) continue;
    for (const { group, figures } of comparisonGroups(b)) {
      // agentd's rows are the ones a peer ratio or a target hangs on whose subject names agentd.
      const ours = new Set(figures.filter((f) => /agentd/i.test(f.subject)).map((f) => f.id));
      const first = figures[0] as Figure;
      const title = `${b.bench}: ${group}`;
      charts.push({
        file: groupChartFile(b.bench, group),
        title,
        svg: barChart({
          title,
          valueLabel: `${first.metric} (${first.unit}; ${first.better} is better)`,
          bars: figures.map((f) => ({ name: f.subject, role: roleOf(f, ours), value: f.median })),
        }),
      });
    }
    for (const c of b.curves ?? []) {
      charts.push({
        file: curveChartFile(c),
        title: c.title,
        svg: lineChart({
          title: c.title,
          xLabel: `${c.x.label} (${c.x.unit})`,
          yLabel: `${c.y.label} (${c.y.unit})`,
          series: c.series.map((s) => ({ ...s, name: s.growth ? `${s.name}: ${s.growth.kind}` : s.name })),
        }),
      });
    }
  }
  return charts;
}
