/**
 * Reference rows: a figure read against other floors beside its own (never judged) gets its ratio to each
 * measured reference, shown in the table's floor column and beside the floor targets in the summary.
 */
import { expect, test } from "bun:test";
import { finishFigures, type FigureSpec } from "./figures.ts";
import { renderBench, renderSummary } from "./report.ts";

const spec = (id: string, subject: string, median: number, extra: Partial<FigureSpec> = {}): FigureSpec => ({
  id,
  group: "tools/call",
  subject,
  metric: "requests/s",
  unit: "req/s",
  better: "higher",
  runs: [median],
  ...extra,
});

const figures = finishFigures("http", [
  spec("ours", "agentd", 60, {
    floor: "floor",
    targets: [{ text: "≥ 0.8× the floor", against: "floor", op: ">=", value: 0.8 }],
    references: [
      { figure: "reads", name: "the floor with the required reads" },
      { figure: "missing", name: "a floor not measured" },
    ],
  }),
  spec("floor", "floor: bare", 80),
  spec("reads", "floor with reads", 66, { floor: "floor" }),
]);

test("a figure's ratio to each measured reference is computed, and a reference not measured is left out", () => {
  const ours = figures.find((f) => f.id === "ours");
  expect(ours?.vsFloor).toBe(0.75);
  expect(ours?.vsReferences).toEqual([{ figure: "reads", name: "the floor with the required reads", ratio: 0.909 }]);
  expect(ours?.judged?.[0]?.met).toBe(false);
  expect(figures.find((f) => f.id === "reads")?.vsReferences).toBeUndefined();
});

test("the table and the summary state the reference ratios beside the floor's", () => {
  const result = { bench: "http" as const, mode: "tiny" as const, command: "bun bench/run.ts http", seconds: 1, figures, notes: [] };
  expect(renderBench(result)).toContain("| 0.75× (0.91× the floor with the required reads) |");
  expect(renderBench(result)).toContain("| floor with reads | 66 req/s | 66 – 66 |  | 0.83× |");
  expect(renderSummary({ machine: {} as never, benches: { http: result } })).toContain(
    "| ≥ 0.8× the floor | 60 req/s | 0.75× (0.91× the floor with the required reads) | **missed** |",
  );
});
