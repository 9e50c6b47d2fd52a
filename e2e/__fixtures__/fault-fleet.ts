/**
 * A fleet of real agentd processes for the fault campaign: each replica is spawned with its own name,
 * its stderr telemetry is parsed line by line and handed to the fleet's listeners (so a test waits for an
 * event from any replica, never for time), and a replica is killed with SIGKILL by PID. `stopAll` kills
 * whatever is still alive (for afterEach).
 */
import { CLI_MAIN } from "@agentd/test-support/cli-process";

/** A telemetry record, with the replica that logged it and its place in the order the fleet heard them. */
export type FleetEvent = Record<string, any> & { event: string; ts: string; replica: string; seq: number };

/** One replica. */
export interface Replica {
  readonly name: string;
  readonly pid: number;
  readonly events: FleetEvent[];
  readonly exited: Promise<number>;
  /** The last lines of its stderr (for failure messages). */
  tail(): string;
}

/** Processes started by a fleet, alive or not. */
export class Fleet {
  readonly replicas: Replica[] = [];
  private readonly procs = new Map<string, ReturnType<typeof Bun.spawn>>();
  private readonly listeners = new Set<(e: FleetEvent) => void>();
  /** How many events the fleet has heard (the `seq` of the last one). */
  heard = 0;

  constructor(
    private readonly args: (name: string) => string[],
    private readonly env: (name: string) => Record<string, string>,
    private readonly cwd: string,
  ) {}

  /** Start a replica called `name`. */
  start(name: string): Replica {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
      AGENT_LOG_FORMAT: "json",
      ...this.env(name),
    };
    const proc = Bun.spawn([process.execPath, CLI_MAIN, ...this.args(name)], {
      cwd: this.cwd,
      env,
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    this.procs.set(name, proc);
    const events: FleetEvent[] = [];
    let stderr = "";
    const pump = (async () => {
      const decoder = new TextDecoder();
      let partial = "";
      for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        stderr = (stderr + text).slice(-4000);
        const lines = (partial + text).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) {
          if (!line.startsWith("{")) continue;
          let e: FleetEvent;
          try {
            e = { ...JSON.parse(line), replica: name, seq: this.heard + 1 };
          } catch {
            continue;
          }
          this.heard = e.seq;
          events.push(e);
          for (const l of [...this.listeners]) l(e);
        }
      }
    })();
    const replica: Replica = {
      name,
      pid: proc.pid,
      events,
      exited: Promise.all([proc.exited, pump]).then(([code]) => code),
      tail: () => stderr,
    };
    this.replicas.push(replica);
    return replica;
  }

  /** SIGKILL a replica by PID and wait for its exit. */
  async kill(replica: Replica): Promise<void> {
    this.procs.get(replica.name)?.kill("SIGKILL");
    await replica.exited;
  }

  /** Whether a replica is still running. */
  alive(replica: Replica): boolean {
    const p = this.procs.get(replica.name);
    return p !== undefined && p.exitCode === null && p.signalCode === null;
  }

  /** Hear every event of every replica from now on; returns the unsubscribe. */
  on(listener: (e: FleetEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The first event matching `match` — already seen, or (`onlyNew`) only one still to come; rejects after
   * `timeoutMs` with `why()`.
   */
  waitFor(match: (e: FleetEvent) => boolean, timeoutMs: number, why: () => string, onlyNew = false): Promise<FleetEvent> {
    const seen = onlyNew ? undefined : this.replicas.flatMap((r) => r.events).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${why()}`));
      }, timeoutMs);
      const off = this.on((e) => {
        if (!match(e)) return;
        clearTimeout(timer);
        off();
        resolve(e);
      });
    });
  }

  /** SIGKILL every replica still running, by PID. */
  async stopAll(): Promise<void> {
    await Promise.all(this.replicas.filter((r) => this.alive(r)).map((r) => this.kill(r)));
  }
}

/** A seeded PRNG (mulberry32): the campaign's random points are reproducible from the seed it reports. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
