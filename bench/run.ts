#!/usr/bin/env bun
/**
 * The benchmark runner: `bun bench/run.ts [codec|stdio|http|startup|loop|growth|tls|tasks|approvals ...] [--quick]`.
 *
 * Runs the named benchmarks (all by default), merges their results into bench/results/latest.json (the
 * others keep their last results) and regenerates the tables in bench/README.md and the charts in
 * bench/results/charts/ (`--render`: only that, from latest.json as it is). Exit code 1 if any benchmark
 * failed, 2 on a usage mistake.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";
import { runApprovals } from "./approvals/approvals-bench.ts";
import { runCodec } from "./codec/codec-bench.ts";
import { runGrowth } from "./growth/growth-bench.ts";
import { chartsOf } from "./lib/charts.ts";
import { BENCH_NAMES, type BenchName, type BenchResult, type Mode } from "./lib/figures.ts";
import { BENCH_DIR, runToEnd } from "./lib/proc.ts";
import { renderResults, spliceResults, type MachineInfo, type ResultFile } from "./lib/report.ts";
import { runHttp } from "./http/http-bench.ts";
import { runLoop } from "./loop/loop-bench.ts";
import { runStartup } from "./startup/startup-bench.ts";
import { runStdio } from "./stdio/stdio-bench.ts";
import { runTls } from "./tls/tls-bench.ts";
import { runTasks } from "./tasks/tasks-bench.ts";

/** Each benchmark's entry point. */
export const BENCHES: Record<BenchName, (mode: Mode, log: (line: string) => void) => Promise<BenchResult>> = {
  codec: (mode) => runCodec(mode),
  stdio: (mode) => runStdio(mode),
  http: runHttp,
  startup: runStartup,
  loop: runLoop,
  growth: runGrowth,
  tls: runTls,
  tasks: runTasks,
  approvals: runApprovals,
};

const RESULTS = join(BENCH_DIR, "results", "latest.json");
const README = join(BENCH_DIR, "README.md");
const CHARTS = join(BENCH_DIR, "results", "charts");

/** Write every chart of `file` into `dir` (emptied first, so no chart of a figure gone is left behind). */
export function writeCharts(file: ResultFile, dir: string): string[] {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const charts = chartsOf(file);
  for (const c of charts) writeFileSync(join(dir, c.file), c.svg);
  return charts.map((c) => c.file);
}

async function machine(loadStart: number[]): Promise<MachineInfo> {
  const node = await runToEnd(["node", "--version"]).catch(() => ({ stdout: "absent" }));
  return {
    cpu: cpus()[0]?.model.trim() ?? "unknown CPU",
    cores: cpus().length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    bun: Bun.version,
    node: node.stdout.trim().replace(/^v/, ""),
    loadStart,
    loadEnd: loadavg(),
    date: new Date().toISOString(),
  };
}

function parseArgs(argv: string[]): { names: BenchName[]; mode: Mode; render: boolean } | string {
  const names: BenchName[] = [];
  let mode: Mode = "full";
  let render = false;
  for (const a of argv) {
    if (a === "--quick") mode = "quick";
    else if (a === "--render") render = true;
    else if ((BENCH_NAMES as readonly string[]).includes(a)) names.push(a as BenchName);
    else return `unknown argument "${a}": use ${BENCH_NAMES.join("|")} and/or --quick, or --render alone`;
  }
  if (render && names.length) return "--render re-renders bench/README.md and the charts from latest.json: name no benchmark with it";
  return { names: render ? [] : names.length ? names : [...BENCH_NAMES], mode, render };
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === "string") {
    console.error(`bench: ${args}`);
    return 2;
  }
  const log = (line: string) => console.error(line);
  const loadStart = loadavg();
  const file: ResultFile = existsSync(RESULTS)
    ? (JSON.parse(readFileSync(RESULTS, "utf8")) as ResultFile)
    : { machine: await machine(loadStart), benches: {} };
  let failed = 0;
  const started = performance.now();
  if (args.render && !existsSync(RESULTS)) {
    console.error("bench: --render needs bench/results/latest.json: run a benchmark first");
    return 2;
  }
  for (const name of args.names) {
    log(`bench: ${name} (${args.mode})…`);
    try {
      const t0 = loadavg();
      const result = await BENCHES[name](args.mode, log);
      file.benches[name] = { ...result, machine: await machine(t0) };
      log(`bench: ${name} done in ${result.seconds.toFixed(0)} s`);
    } catch (e) {
      failed++;
      log(`bench: ${name} FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    }
  }
  if (!args.render) {
    file.machine = await machine(loadStart);
    mkdirSync(join(BENCH_DIR, "results"), { recursive: true });
    writeFileSync(RESULTS, `${JSON.stringify(file, null, 2)}\n`);
  }
  writeCharts(file, CHARTS);
  const readme = existsSync(README) ? readFileSync(README, "utf8") : "# bench\n";
  writeFileSync(README, spliceResults(readme, renderResults(file)));
  log(
    `bench: wrote ${args.render ? "" : "bench/results/latest.json, "}bench/README.md and bench/results/charts/ in ${((performance.now() - started) / 1000).toFixed(0)} s${failed ? `; ${failed} failed` : ""}`,
  );
  return failed ? 1 : 0;
}

if (import.meta.main) process.exit(await main());
