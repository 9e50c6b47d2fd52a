/**
 * The charts the runner writes, from a small fixture results file: each is well-formed XML (checked by an
 * independent parser, fast-xml-parser), an SVG with a title and labelled axes whose labels carry units, one
 * chart per comparison group and per growth curve, each referenced by the README block.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { withGrowth, type Curve } from "./growth.ts";
import { renderResults, type ResultFile } from "./report.ts";
import { writeCharts } from "../run.ts";

const fixture = () => {
  const file = JSON.parse(readFileSync(join(import.meta.dir, "__fixtures__", "small-results.json"), "utf8")) as ResultFile;
  const growth = file.benches.growth;
  if (growth) growth.curves = (growth.curves ?? []).map((c: Curve) => withGrowth(c));
  return file;
};

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Every <text> of a parsed SVG, with its class. */
function texts(node: unknown, out: Array<{ cls?: string; text: string }> = []): Array<{ cls?: string; text: string }> {
  if (Array.isArray(node)) for (const n of node) texts(n, out);
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "text")
        for (const t of Array.isArray(v) ? v : [v])
          out.push(typeof t === "object" ? { cls: t["@_class"], text: String(t["#text"] ?? "") } : { text: String(t) });
      else texts(v, out);
    }
  }
  return out;
}

test("every chart is well-formed SVG with labelled axes carrying units, and the README shows each", () => {
  dir = mkdtempSync(join(tmpdir(), "agentd-bench-charts-"));
  const file = fixture();
  const written = writeCharts(file, dir);
  expect(written.sort()).toEqual(readdirSync(dir).sort());
  // One comparison group (loop overhead, agentd against Mastra) and one growth curve.
  expect(written.sort()).toEqual(["growth-http-idle-sessions.svg", "loop-loop-overhead-per-tool-turn.svg"]);
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@_" });
  for (const name of written) {
    const svgText = readFileSync(join(dir, name), "utf8");
    expect(XMLValidator.validate(svgText)).toBe(true);
    const doc = parser.parse(svgText) as { svg?: Record<string, unknown> };
    expect(doc.svg?.["@_xmlns"]).toBe("http://www.w3.org/2000/svg");
    expect(String(doc.svg?.title ?? "")).not.toBe("");
    const labels = texts(doc.svg).filter((t) => t.cls?.startsWith("axis-label"));
    expect(labels.map((l) => l.cls).sort()).toEqual(["axis-label x", "axis-label y"]);
    expect(labels.every((l) => l.text.length > 0)).toBe(true);
  }
  const line = readFileSync(join(dir, "growth-http-idle-sessions.svg"), "utf8");
  expect(line).toContain("idle sessions (sessions)");
  expect(line).toContain("RSS growth (MB)");
  expect(line).toContain("floor: bare Bun.serve: linear"); // the floor on the same chart, with its fitted growth
  expect(line).toContain('stroke-dasharray="6 4"'); // drawn dashed
  const bars = readFileSync(join(dir, "loop-loop-overhead-per-tool-turn.svg"), "utf8");
  expect(bars).toContain("time (ms; lower is better)");
  expect(bars).toContain("Mastra &lt;peer&gt; &amp; co (Bun)"); // escaped, and still well-formed
  const readme = renderResults(file);
  for (const name of written) expect(readme).toContain(`(results/charts/${name})`);
  expect(readme).toContain("Fitted growth: agentd: linear");
  expect(readme).toContain("| growth | Idle HTTP sessions: RSS growth | ≤ 1.15× the floor |");
});
