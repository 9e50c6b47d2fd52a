/**
 * Test harness for the long-running modes: start the real `agentd` CLI as a child process, follow its
 * stderr telemetry line by line, wait for events (never for time), signal it, and see which processes it
 * started (from /proc). Everything started is stopped by PID in `stopAll()` (call it in afterEach).
 */
import { CLI_MAIN } from "@agentd/test-support/cli-process";
import { descendantsOf, isAlive } from "./proc-tree.ts";

type Event = Record<string, any>;
const live = new Set<AgentdProcess>();

/** One running agentd. */
export class AgentdProcess {
  readonly events: Event[] = [];
  stdout = "";
  stderr = "";
  readonly exited: Promise<number>;
  private readonly proc: ReturnType<typeof Bun.spawn>;
  private readonly waiters = new Set<() => void>();
  private seenDescendants = new Set<number>();
  private partial = "";

  /** `options.command` starts agentd through another command (a launcher) instead of Bun on the sources. */
  constructor(args: string[], options: AgentdOptions) {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      XDG_STATE_HOME: process.env.XDG_STATE_HOME,
      AGENT_LOG_FORMAT: "json",
      ...options.env,
    }))
      if (v !== undefined) env[k] = v;
    this.proc = Bun.spawn([...(options.command ?? [process.execPath, CLI_MAIN]), ...args], {
      cwd: options.cwd,
      env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    live.add(this);
    const out = this.pump(this.proc.stdout as ReadableStream<Uint8Array>, (s) => (this.stdout += s));
    const err = this.pump(this.proc.stderr as ReadableStream<Uint8Array>, (s) => this.onStderr(s));
    this.exited = Promise.all([this.proc.exited, out, err]).then(([code]) => {
      live.delete(this);
      this.wake();
      return code;
    });
  }

  get pid(): number {
    return this.proc.pid;
  }

  /** Events named `name` (matching `match`). */
  named(name: string, match: (e: Event) => boolean = () => true): Event[] {
    return this.events.filter((e) => e.event === name && match(e));
  }

  /** Wait until `count` events named `name` (matching `match`) were logged; fails early if the process exits. */
  async waitFor(name: string, count = 1, match: (e: Event) => boolean = () => true, timeoutMs = 60_000): Promise<Event[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.named(name, match);
      if (found.length >= count) return found;
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
        await this.exited;
        const again = this.named(name, match);
        if (again.length >= count) return again;
        throw new Error(
          `agentd exited (${this.proc.exitCode ?? this.proc.signalCode}) before ${count}× ${name}; stderr:\n${this.stderr.slice(-3000)}`,
        );
      }
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${count}× ${name} (saw ${found.length}); stderr:\n${this.stderr.slice(-3000)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.max(0, deadline - Date.now()) + 10);
        this.waiters.add(done);
        function done() {
          clearTimeout(timer);
          resolve();
        }
      });
    }
  }

  /** The processes agentd started (children and their children), remembered for `stopAll`. */
  descendants(): number[] {
    const pids = descendantsOf(this.pid);
    for (const p of pids) this.seenDescendants.add(p);
    return pids;
  }

  /** Send a signal to agentd (by PID). */
  signal(sig: NodeJS.Signals): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(sig);
  }

  /** SIGKILL agentd and every descendant seen, by PID. */
  async kill(): Promise<void> {
    const pids = [...new Set([...this.seenDescendants, ...(isAlive(this.pid) ? descendantsOf(this.pid) : [])])];
    this.signal("SIGKILL");
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    await this.exited;
  }

  private onStderr(chunk: string): void {
    this.stderr += chunk;
    const lines = (this.partial + chunk).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines)
      if (line.startsWith("{"))
        try {
          this.events.push(JSON.parse(line));
        } catch {
          // not telemetry
        }
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) {
      this.waiters.delete(w);
      w();
    }
  }

  private async pump(stream: ReadableStream<Uint8Array>, sink: (s: string) => void): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) sink(decoder.decode(chunk, { stream: true }));
  }
}

/** How to start one agentd: where, with what environment, and (default: Bun on the sources) by what command. */
export interface AgentdOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  command?: string[];
}

/** Start agentd with `args`. */
export const startAgentd = (args: string[], options: AgentdOptions) => new AgentdProcess(args, options);

/** Kill every agentd still running (and what it started). For afterEach. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((p) => p.kill()));
}
