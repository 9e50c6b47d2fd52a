/**
 * Profiling aid (not part of `bun bench/run.ts`): the compiled one-shot demo (`agentd demo`, which spawns the
 * same binary as its `__demo-server` child) in several builds, interleaved run by run, by CPU (task-clock of
 * the whole process tree from `perf stat`, which follows children: what load moves little) and by wall time
 * (what the target judges; noisy on a loaded machine) of a second run without `perf` (whose own start would
 * count). Prints medians, each subject's per-round difference to the first (median), and the load average before and after.
 *
 *   bun bench/profile/oneshot-ab.ts ROUNDS SUBJECT... [--chrt] [--peer]
 *
 * A SUBJECT is one of
 *   LABEL=PATH               an agentd binary already built (run as `PATH demo`);
 *   LABEL:FLAGS              build one from this checkout: `bun build --compile FLAGS packages/cli/src/main.ts`;
 *   LABEL@ROOT:FLAGS         the same from another checkout (e.g. an exported copy of the commit before).
 * --peer adds `@openai/agents` on Bun (bench/peers/openai-agents-oneshot.ts) spawning the first subject's
 * binary as its server, as the startup benchmark's `demo.bun-same` row does. --chrt runs every subject under
 * `chrt -f 50` (SCHED_FIFO, ahead of other users' processes: wall figures become indicative on a shared
 * machine; needs the privilege to set a real-time policy).
 *
 * Example: bun bench/profile/oneshot-ab.ts 21 'split:--bytecode --splitting --format=esm' \
 *            'min:--bytecode --splitting --format=esm --minify' --peer
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");
const ANSWER = "119.51 EUR";
const args = process.argv.slice(2);
const rounds = Number(args[0]);
const chrt = args.includes("--chrt");
const withPeer = args.includes("--peer");
const specs = args.slice(1).filter((a) => !a.startsWith("--"));
if (!Number.isInteger(rounds) || rounds < 1 || specs.length === 0)
  throw new Error("usage: oneshot-ab.ts ROUNDS LABEL=PATH|LABEL:FLAGS|LABEL@ROOT:FLAGS... [--chrt] [--peer]");

interface Subject {
  label: string;
  argv: string[];
  env?: Record<string, string>;
  binary?: string;
}

const work = mkdtempSync(join(tmpdir(), "oneshot-ab-"));

/** Build (or name) the binary a subject spec describes. */
async function subjectFor(spec: string): Promise<Subject> {
  const eq = spec.indexOf("=");
  const colon = spec.indexOf(":");
  if (eq > 0 && (colon < 0 || eq < colon)) {
    const binary = resolve(spec.slice(eq + 1));
    return { label: spec.slice(0, eq), argv: [binary, "demo"], binary };
  }
  if (colon < 0) throw new Error(`not a subject: ${spec}`);
  const [label = "", root = ROOT] = spec.slice(0, colon).split("@");
  const flags = spec
    .slice(colon + 1)
    .split(/\s+/)
    .filter(Boolean);
  const binary = join(work, `agentd-${label}`);
  const t0 = performance.now();
  const proc = Bun.spawn([process.execPath, "build", "--compile", ...flags, "packages/cli/src/main.ts", "--outfile", binary], {
    cwd: resolve(root),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`building ${label} failed: ${err}`);
  const mb = statSync(binary).size / 1e6;
  console.log(
    `built ${label} (${flags.join(" ") || "no flags"}) from ${resolve(root)}: ${mb.toFixed(2)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return { label, argv: [binary, "demo"], binary };
}

/**
 * Two runs: one under `perf stat` for the task-clock of the tree, one without for the wall time (ms); both
 * must print the answer.
 */
async function runOnce(s: Subject): Promise<{ cpu: number; wall: number }> {
  const prefix = chrt ? ["chrt", "-f", "50"] : [];
  const t0 = performance.now();
  const plain = Bun.spawn([...prefix, ...s.argv], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...s.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
  });
  const [plainOut, plainCode] = await Promise.all([new Response(plain.stdout).text(), plain.exited]);
  const wall = performance.now() - t0;
  if (plainCode !== 0 || !plainOut.includes(ANSWER)) throw new Error(`${s.label} exited ${plainCode} without the answer`);
  const proc = Bun.spawn([...prefix, "perf", "stat", "-x,", "-e", "task-clock", "--", ...s.argv], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...s.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0 || !out.includes(ANSWER)) throw new Error(`${s.label} exited ${code} without the answer: ${err.slice(-800)}`);
  const line = err.split("\n").find((l) => l.includes("task-clock"));
  if (!line) throw new Error(`no task-clock in perf output: ${err.slice(-500)}`);
  return { cpu: Number(line.split(",")[0]), wall };
}

/** The environment without anything that would point the demo at a real model. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("AGENT_") && k !== "RUN_ID") env[k] = v;
  return env;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

try {
  const subjects: Subject[] = [];
  for (const spec of specs) subjects.push(await subjectFor(spec));
  if (withPeer)
    subjects.push({
      label: "openai-agents-bun",
      argv: [process.execPath, join(ROOT, "bench", "peers", "openai-agents-oneshot.ts")],
      env: { BENCH_DEMO_SERVER: subjects[0]!.binary! },
    });
  for (const s of subjects) await runOnce(s); // warm-up: page cache, and the answer checked
  console.log(`load before: ${load()}${chrt ? " (runs under chrt -f 50)" : ""}`);
  const cpu = new Map<string, number[]>(subjects.map((s) => [s.label, []]));
  const wall = new Map<string, number[]>(subjects.map((s) => [s.label, []]));
  for (let r = 0; r < rounds; r++) {
    // Rotate the order each round, so a drift in load does not favour one subject.
    for (let i = 0; i < subjects.length; i++) {
      const s = subjects[(i + r) % subjects.length]!;
      const m = await runOnce(s);
      cpu.get(s.label)!.push(m.cpu);
      wall.get(s.label)!.push(m.wall);
    }
  }
  console.log(
    `load after: ${load()}; ${rounds} interleaved rounds, medians (task-clock of the tree under perf; wall of a run without it):`,
  );
  const peerWall = withPeer ? median(wall.get("openai-agents-bun")!) : Number.NaN;
  for (const s of subjects) {
    const c = median(cpu.get(s.label)!);
    const w = median(wall.get(s.label)!);
    const ratio = withPeer && s.label !== "openai-agents-bun" ? `  ${(w / peerWall).toFixed(3)}× the peer's wall` : "";
    console.log(`  ${s.label.padEnd(20)} cpu ${c.toFixed(1).padStart(7)} ms   wall ${w.toFixed(1).padStart(7)} ms${ratio}`);
  }
  // Paired: each round's difference to the first subject, whose median moves less with the load than the
  // medians above (a round's subjects ran within a second of each other).
  const first = subjects[0]!.label;
  for (const s of subjects.slice(1)) {
    if (s.label === "openai-agents-bun") continue;
    const d = (m: Map<string, number[]>) => median(m.get(s.label)!.map((v, i) => v - m.get(first)![i]!));
    const fewer = wall.get(s.label)!.filter((v, i) => v < wall.get(first)![i]!).length;
    console.log(
      `  ${s.label} − ${first}, per round: cpu ${d(cpu).toFixed(2)} ms, wall ${d(wall).toFixed(2)} ms (lower wall in ${fewer} of ${rounds})`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
