/**
 * Child processes for the benchmarks: every subject runs in its own process so its memory and JIT state are
 * its own. Children are stopped by their pid, always (`stop()` in a `finally`).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The repository root (bench/ is one level down). */
export const ROOT = join(dirname(new URL(import.meta.url).pathname), "..", "..");
/** The bench folder. */
export const BENCH_DIR = join(ROOT, "bench");
/** The bun executable running this script. */
export const BUN = process.execPath;

/** Wrap a command so it runs with the file-descriptor limit raised to the hard limit (where allowed). */
export const withRaisedFdLimit = (argv: string[]): string[] => [
  "sh",
  "-c",
  'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$@"',
  "sh",
  ...argv,
];

/** A running child that prints JSON lines on stdout. */
export interface Child {
  pid: number;
  /** The next stdout line parsed as JSON; rejects if the child exits or `timeoutMs` passes first. */
  next<T = Record<string, unknown>>(timeoutMs?: number): Promise<T>;
  /** Write one line to the child's stdin. */
  send(line: string): void;
  /** Resident set size now (kB), from /proc. */
  rssKb(): number;
  /** Everything the child wrote on stderr so far. */
  stderr(): string;
  /** Close stdin, then SIGTERM, then SIGKILL this pid; resolves once it is gone. */
  stop(): Promise<void>;
  exited: Promise<number>;
}

/** Start `argv` with piped stdio. */
export function startChild(argv: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Child {
  const proc = Bun.spawn(argv, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let ended = false;
  let err = "";
  const wake = () => waiters.splice(0).forEach((w) => w());
  void (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) lines.push(line);
      }
      wake();
    }
    ended = true;
    wake();
  })();
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) err = (err + decoder.decode(chunk, { stream: true })).slice(-20_000);
  })();
  const exited = proc.exited;
  const child: Child = {
    pid: proc.pid,
    exited,
    async next<T>(timeoutMs = 120_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = lines.shift();
        if (line !== undefined) {
          try {
            return JSON.parse(line) as T;
          } catch {
            throw new Error(`child ${argv.join(" ")} printed a non-JSON line: ${line.slice(0, 200)}`);
          }
        }
        if (ended) throw new Error(`child ${argv.slice(0, 4).join(" ")} ended (code ${await exited}): ${err.slice(-1500)}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`child ${argv.slice(0, 4).join(" ")}: no output within ${timeoutMs} ms: ${err.slice(-1500)}`);
        let timer: Timer | undefined;
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          timer = setTimeout(resolve, left);
        });
        clearTimeout(timer);
      }
    },
    send(line) {
      proc.stdin.write(`${line}\n`);
      proc.stdin.flush();
    },
    rssKb: () => procStatusKb(proc.pid, "VmRSS") ?? 0,
    stderr: () => err,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      try {
        proc.stdin.end();
      } catch {
        // Already closed.
      }
      if (await settlesWithin(exited, 1500)) return;
      proc.kill("SIGTERM");
      if (await settlesWithin(exited, 2000)) return;
      proc.kill("SIGKILL");
      await exited;
    },
  };
  return child;
}

const settlesWithin = async (p: Promise<unknown>, ms: number): Promise<boolean> => {
  let timer: Timer | undefined;
  const r = await Promise.race([p.then(() => true), new Promise<boolean>((res) => (timer = setTimeout(() => res(false), ms)))]);
  clearTimeout(timer);
  return r;
};

/** A field of /proc/PID/status in kB (`VmRSS`, `VmHWM`), or undefined when the process is gone. */
export function procStatusKb(pid: number, field: "VmRSS" | "VmHWM"): number | undefined {
  try {
    const m = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Run one child to completion and capture its output. */
export async function runToEnd(argv: string[], options: { env?: Record<string, string>; timeoutMs?: number } = {}) {
  const proc = Bun.spawn(argv, { cwd: ROOT, env: { ...process.env, ...options.env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), options.timeoutMs ?? 120_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Whether a program is on PATH (or an absolute path that exists). */
export function which(program: string): string | undefined {
  if (program.startsWith("/")) return existsSync(program) ? program : undefined;
  return Bun.which(program) ?? undefined;
}
