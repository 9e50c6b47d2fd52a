import { expect, test } from "bun:test";
import { MetricRegistry } from "./prometheus-text.ts";

test("label values are escaped, families carry HELP and TYPE, histograms are cumulative with +Inf, _sum and _count", () => {
  const m = new MetricRegistry();
  m.counter("c_total", "a counter\nwith a newline").inc({ code: 'say "hi"\\now\nnext' }, 2);
  const h = m.histogram("h_seconds", "a histogram", [1, 5]);
  h.observe(0.5, { server: "a" });
  h.observe(3, { server: "a" });
  h.observe(9, { server: "a" });
  m.gauge("g", "a gauge", () => [{ labels: {}, value: 7 }]);
  expect(m.render()).toBe(
    [
      "# HELP c_total a counter\\nwith a newline",
      "# TYPE c_total counter",
      'c_total{code="say \\"hi\\"\\\\now\\nnext"} 2',
      "# HELP h_seconds a histogram",
      "# TYPE h_seconds histogram",
      'h_seconds_bucket{server="a",le="1"} 1',
      'h_seconds_bucket{server="a",le="5"} 2',
      'h_seconds_bucket{server="a",le="+Inf"} 3',
      'h_seconds_sum{server="a"} 12.5',
      'h_seconds_count{server="a"} 3',
      "# HELP g a gauge",
      "# TYPE g gauge",
      "g 7",
      "",
    ].join("\n"),
  );
});

test("a counter never goes down, and declared series are written at 0", () => {
  const m = new MetricRegistry();
  const c = m.counter("x_total", "x", [{ kind: "input" }]);
  c.inc({ kind: "input" }, -5);
  expect(m.render()).toContain('x_total{kind="input"} 0\n');
  expect(() => m.counter("bad-name", "x")).toThrow(/invalid metric name/);
});
