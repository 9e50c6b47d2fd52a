/**
 * Run a command with its stdout piped into {@link LATE_READER} (a reader that starts late and reads
 * slowly), the way `agentd run … | (sleep 0.3; cat)` does in a shell, and collect exactly the bytes the
 * reader received, the command's exit code and its stderr.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The slow reader script. */
export const LATE_READER = resolve(import.meta.dir, "late-reader.ts");

/** What the reader got and how the command ended. */
export interface LatePipeRun {
  code: number;
  /** Every byte the reader received, in order. */
  received: Buffer;
  stderr: string;
}

/** Options of {@link runIntoLateReader}. */
export interface LatePipeOptions {
  cwd: string;
  env: Record<string, string>;
  /** A file fed to the command's stdin (default: /dev/null). */
  stdinFile?: string;
  /** How long the reader waits before its first read (default 400 ms). */
  readerDelayMs?: number;
  /** Called once the command runs, with its PID and a reader of its stderr so far (to signal it on an event). */
  whileRunning?: (pid: number, stderr: () => string) => Promise<void>;
}

/** Run `cmd` into the late reader; see the module header. Stops what it started, by PID, on the way out. */
export async function runIntoLateReader(cmd: string[], options: LatePipeOptions): Promise<LatePipeRun> {
  const dir = mkdtempSync(join(tmpdir(), "agentd-late-pipe-"));
  const f = (name: string) => join(dir, name);
  // The command runs in the background of the pipeline's left side so its own PID and exit code are known.
  const script = `{ "$@" <"$LP_IN" 2>"$LP_ERR" & echo $! >"$LP_PID"; wait $!; echo $? >"$LP_CODE"; } | "$LP_BUN" "$LP_READER" "$LP_DELAY" "$LP_OUT"`;
  const shell = Bun.spawn(["bash", "-c", script, "late-pipe", ...cmd], {
    cwd: options.cwd,
    env: {
      ...options.env,
      LP_IN: options.stdinFile ?? "/dev/null",
      LP_ERR: f("stderr"),
      LP_PID: f("pid"),
      LP_CODE: f("code"),
      LP_OUT: f("out"),
      LP_BUN: process.execPath,
      LP_READER: LATE_READER,
      LP_DELAY: String(options.readerDelayMs ?? 400),
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  let pid: number | undefined;
  const stderr = () => (existsSync(f("stderr")) ? readFileSync(f("stderr"), "utf8") : "");
  try {
    if (options.whileRunning) {
      pid = await until(() => (existsSync(f("pid")) ? Number(readFileSync(f("pid"), "utf8")) || undefined : undefined));
      await options.whileRunning(pid, stderr);
    }
    await shell.exited;
    return { code: Number(readFileSync(f("code"), "utf8")), received: readFileSync(f("out")), stderr: stderr() };
  } finally {
    for (const p of [pid, shell.pid])
      try {
        if (p) process.kill(p, "SIGKILL");
      } catch {
        // already gone
      }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Resolve with `probe()`'s first defined value, checking as the event it waits for may land any time. */
export async function until<T>(probe: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting for the condition");
    await Bun.sleep(20);
  }
}
