/**
 * Timing one-shot processes: wall time of direct spawns (output discarded), and peak resident memory from
 * `/usr/bin/time -v` runs (its "Maximum resident set size": the largest process of the tree), or, without
 * it, from polling /proc/PID/status VmHWM of the top process until it exits.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { procStatusKb, ROOT } from "../lib/proc.ts";

/** Environment without anything that would point the demo at a real model. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("AGENT_") && k !== "RUN_ID") env[k] = v;
  return { ...env, ...extra };
}

/** Run `argv` once, discarding output; wall milliseconds. Throws on a non-zero exit. */
export async function wallMs(argv: string[], env: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const proc = Bun.spawn(argv, { cwd: ROOT, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  const code = await proc.exited;
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}`);
  return ms;
}

const TIME = "/usr/bin/time";

/** Peak RSS in MB of one run of `argv`. */
export async function peakMb(argv: string[], env: Record<string, string>): Promise<number> {
  if (existsSync(TIME)) {
    // The report goes to a file: the child may leave the shared stderr pipe non-blocking, and time's own
    // write to it would then fail with EAGAIN.
    const report = join(tmpdir(), `agentd-bench-time-${process.pid}.txt`);
    const proc = Bun.spawn([TIME, "-v", "-o", report, ...argv], { cwd: ROOT, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    const code = await proc.exited;
    const text = existsSync(report) ? readFileSync(report, "utf8") : "";
    rmSync(report, { force: true });
    const kb = Number(text.match(/Maximum resident set size \(kbytes\): (\d+)/)?.[1]);
    if (code !== 0 || !Number.isFinite(kb)) throw new Error(`${argv.join(" ")} under ${TIME} exited ${code}: ${text.slice(-500)}`);
    return kb / 1024;
  }
  const proc = Bun.spawn(argv, { cwd: ROOT, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  let hwm = 0;
  while (proc.exitCode === null) {
    hwm = Math.max(hwm, procStatusKb(proc.pid, "VmHWM") ?? 0);
    await Bun.sleep(2);
  }
  return hwm / 1024;
}

/** Run once with output captured and check stdout contains `expect` (so a timed run is a real run). */
export async function verify(argv: string[], env: Record<string, string>, expect: string): Promise<void> {
  const proc = Bun.spawn(argv, { cwd: ROOT, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0 || !out.includes(expect))
    // The message lines of stderr (not the stack frames), so a peer's failure says what failed.
    throw new Error(
      `${argv.join(" ")} exited ${code} without "${expect}" on stdout: ${out.slice(0, 300)} ${err
        .split("\n")
        .filter((l) => !/^\s+at /.test(l))
        .join("\n")
        .slice(-1500)}`,
    );
}
