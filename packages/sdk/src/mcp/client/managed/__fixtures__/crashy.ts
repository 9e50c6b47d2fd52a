/**
 * Test helpers around `crashy-server.ts`: a state folder, a stdio transport factory that remembers every
 * child it started, an HTTP server process that can be killed and restarted on the same port, and waits
 * with a failure deadline (never a fixed sleep).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LogRecord } from "../../../../log.ts";
import { StdioChildTransport } from "../../../../transport/stdio-child.ts";
import type { Emitter } from "../../../protocol/emitter.ts";

export const SERVER = fileURLToPath(new URL("./crashy-server.ts", import.meta.url));
export const RESOURCE = "test://resource";

/** A state folder for one crashy server (see crashy-server.ts). */
export class CrashyState {
  readonly dir = mkdtempSync(join(tmpdir(), "agentd-crashy-"));
  constructor(initial = "v1") {
    this.setResource(initial);
  }
  setResource(text: string): void {
    writeFileSync(join(this.dir, "resource.txt"), text);
  }
  /** While down, a started server process exits at once. */
  down(on: boolean): void {
    const f = join(this.dir, "down");
    if (on) writeFileSync(f, "");
    else if (existsSync(f)) unlinkSync(f);
  }
  /** While held, reads of `test://slow` never answer. */
  hold(on: boolean): void {
    const f = join(this.dir, "hold");
    if (on) writeFileSync(f, "");
    else if (existsSync(f)) unlinkSync(f);
  }
  pids(): number[] {
    const f = join(this.dir, "pids");
    return existsSync(f) ? readFileSync(f, "utf8").split("\n").filter(Boolean).map(Number) : [];
  }
  calls(): Array<{ name: string; pid: number; meta: Record<string, unknown> }> {
    const f = join(this.dir, "calls.jsonl");
    return existsSync(f)
      ? readFileSync(f, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  }
  /** Kill every process this state ever started (safety net for afterEach), then remove the folder. */
  dispose(): void {
    for (const pid of this.pids()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `{ command, args }` of a stdio crashy server (for an `mcpServers` entry). */
export const stdioConfig = (state: CrashyState) => ({ command: process.execPath, args: [SERVER, "stdio", state.dir] });

/** A transport factory for a stdio crashy server; `transports` lists every transport it built. */
export function stdioFactory(state: CrashyState): {
  factory: () => StdioChildTransport;
  transports: StdioChildTransport[];
  livePid(): number;
} {
  const transports: StdioChildTransport[] = [];
  const { command, args } = stdioConfig(state);
  return {
    transports,
    factory: () => {
      const t = new StdioChildTransport({ name: "crashy", command, args, closeGraceMs: 500, termGraceMs: 500 });
      transports.push(t);
      return t;
    },
    livePid: () => {
      const pid = transports.at(-1)?.pid;
      if (pid === undefined) throw new Error("no child running");
      return pid;
    },
  };
}

/** Whether process `pid` is still alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A crashy HTTP server process. */
export interface CrashyHttp {
  url: string;
  pid: number;
  /** SIGKILL and wait for the exit. Idempotent. */
  kill(): Promise<void>;
}

/** Start `crashy-server.ts http` on `port` (0: any); resolves once it listens. */
export async function startCrashyHttp(state: CrashyState, port = 0, ms = 20_000): Promise<CrashyHttp> {
  const proc = Bun.spawn([process.execPath, SERVER, "http", state.dir, String(port)], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const kill = async () => {
    proc.kill("SIGKILL");
    await proc.exited;
  };
  let stderr = "";
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`crashy http did not start in ${ms} ms: ${stderr}`)), ms);
      void proc.exited.then((code) => reject(new Error(`crashy http exited (${code}) before listening: ${stderr}`)));
      void (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of proc.stderr) {
          stderr += decoder.decode(chunk, { stream: true });
          const m = /LISTENING (\S+)/.exec(stderr);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
          if (stderr.length > 64 * 1024) stderr = stderr.slice(-16 * 1024);
        }
      })();
    });
    return { url, pid: proc.pid, kill };
  } catch (e) {
    await kill();
    throw e;
  }
}

/** Resolve once `pred()` holds (checked every 10 ms); fail after `ms` naming `what`. */
export function until(pred: () => boolean, what: string, ms = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pred()) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve();
    };
    const poll = setInterval(check, 10);
    const timer = setTimeout(() => {
      clearInterval(poll);
      reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
    }, ms);
    check();
  });
}

/** The next `event` of an emitter; fails after `ms`. */
export function next<E extends { [K in keyof E]: unknown }, K extends keyof E>(emitter: Emitter<E>, event: K, ms = 20_000): Promise<E[K]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out after ${ms} ms waiting for '${String(event)}'`));
    }, ms);
    const off = emitter.on(event, ((p: E[K]) => {
      clearTimeout(timer);
      off();
      resolve(p);
    }) as never);
  });
}

/** Records of one event in a memory logger. */
export const records = (log: { records: LogRecord[] }, event: string) => log.records.filter((r) => r.event === event);

/** The text of a `resources/read` result. */
export const textOf = (r: { contents: ReadonlyArray<object> }): string =>
  r.contents.map((c) => ("text" in c && typeof c.text === "string" ? c.text : "")).join("");
