/**
 * Test harness for `agentd serve --http`: start the real CLI as a child process, learn its URL from the
 * `serve.listening` telemetry line (port 0 → an ephemeral port), and stop it by PID — SIGTERM, then SIGKILL
 * if it does not exit — from afterEach, whatever the test did.
 */
import type { Subprocess } from "bun";
import { CLI_MAIN } from "@agentd/test-support/cli-process";

/** A running `agentd serve` process. */
export interface ServeProcess {
  pid: number;
  /** The MCP endpoint URL it logged. */
  url: URL;
  /** stderr telemetry so far, parsed (non-JSON lines are kept as `{ line }`). */
  events(): Array<Record<string, any>>;
  /** Resolves when the next stderr record matching `match` arrives (or one already did after `from`). */
  waitForEvent(match: (e: Record<string, any>) => boolean, from?: number): Promise<Record<string, any>>;
  /** The exit code, once it exits. */
  exited: Promise<number>;
  /** Send `signal` and wait for the exit code (SIGKILL after `killAfterMs`). */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<number>;
}

const live = new Set<Subprocess>();

/** The environment a test process gets: nothing inherited but PATH and HOME. */
export function childEnv(env: Record<string, string | undefined> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    XDG_STATE_HOME: process.env.XDG_STATE_HOME,
    AGENT_LOG_FORMAT: "json",
    ...env,
  }))
    if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Start `agentd serve ARGS` and wait for `serve.listening`; rejects with stderr if it exits first. `binary`:
 * a compiled agentd (`bun build --compile`) instead of the CLI's sources.
 */
export async function startServe(
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; binary?: string } = {},
): Promise<ServeProcess> {
  const proc = Bun.spawn([...(options.binary ? [options.binary] : [process.execPath, CLI_MAIN]), "serve", ...args], {
    env: childEnv(options.env),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  live.add(proc);
  const exited = proc.exited.then((code) => {
    live.delete(proc);
    return code;
  });
  const records: Array<Record<string, any>> = [];
  const waiters = new Set<() => void>();
  let ended = false;
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!line) continue;
        try {
          records.push(JSON.parse(line));
        } catch {
          records.push({ line });
        }
      }
      for (const w of [...waiters]) w();
    }
    ended = true;
    for (const w of [...waiters]) w();
  })();

  function waitForEvent(match: (e: Record<string, any>) => boolean, from = 0): Promise<Record<string, any>> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = records.slice(from).find(match);
        if (found) {
          waiters.delete(check);
          resolve(found);
        } else if (ended) {
          waiters.delete(check);
          reject(new Error(`agentd serve ended without the awaited event; stderr:\n${records.map((r) => JSON.stringify(r)).join("\n")}`));
        }
      };
      waiters.add(check);
      check();
    });
  }

  let listening: Record<string, any>;
  try {
    listening = await waitForEvent((e) => e.event === "serve.listening");
  } catch (e) {
    await stopProcess(proc, "SIGKILL", 0);
    throw e;
  }
  return {
    pid: proc.pid,
    url: new URL(listening.url),
    events: () => records,
    waitForEvent,
    exited,
    stop: (signal = "SIGTERM", killAfterMs = 10_000) => stopProcess(proc, signal, killAfterMs),
  };
}

async function stopProcess(proc: Subprocess, signal: NodeJS.Signals, killAfterMs: number): Promise<number> {
  if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
  const timer = setTimeout(() => proc.kill("SIGKILL"), killAfterMs);
  try {
    return await proc.exited;
  } finally {
    clearTimeout(timer);
    live.delete(proc);
  }
}

/** Stop every process started here that is still running (call from afterEach). */
export async function stopAllServe(): Promise<void> {
  await Promise.all([...live].map((p) => stopProcess(p, "SIGTERM", 10_000)));
}
