/**
 * Resident memory of an HTTP server holding idle sessions: the server runs in its own process; a client
 * process opens sessions (initialize, initialized, GET stream left open, one keep-alive connection each) up
 * to each checkpoint; at each, the server collects garbage and its RSS is read from /proc.
 */
import { join } from "node:path";
import { BENCH_DIR, BUN, startChild, withRaisedFdLimit } from "../lib/proc.ts";
import { settledRssKb, startServer, type ServerId } from "./http-servers.ts";

/** RSS in MB at start and at each checkpoint. */
export interface MemoryRun {
  startMb: number;
  atMb: number[];
  /** Seconds the client took to reach each checkpoint. */
  openSeconds: number[];
}

/** One run: a fresh server, sessions opened up to each of `checkpoints`. */
export async function measureMemory(id: ServerId, checkpoints: number[]): Promise<MemoryRun> {
  const max = checkpoints.at(-1) ?? 0;
  const { child: server, port } = await startServer(id, "sse", max + 100);
  const startMb = (await settledRssKb(server)) / 1024;
  const client = startChild(
    withRaisedFdLimit([BUN, join(BENCH_DIR, "http", "idle-sessions.ts"), String(port), checkpoints.join(","), "64"]),
  );
  try {
    const atMb: number[] = [];
    const openSeconds: number[] = [];
    for (const target of checkpoints) {
      const step = await client.next<{ open: number; closed: number; seconds: number }>(180_000);
      if (step.open !== target) throw new Error(`${id}: ${step.open} of ${target} idle sessions open (${step.closed} closed)`);
      atMb.push((await settledRssKb(server)) / 1024);
      openSeconds.push(step.seconds);
      client.send("next");
    }
    return { startMb, atMb, openSeconds };
  } finally {
    await client.stop();
    await server.stop();
  }
}

/** The highest session count the fd limits allow (each session holds one socket on each side). */
export async function sessionCeiling(): Promise<number> {
  const proc = Bun.spawn(withRaisedFdLimit(["sh", "-c", "ulimit -n"]), { stdout: "pipe" });
  const limit = Number((await new Response(proc.stdout).text()).trim());
  return Number.isFinite(limit) ? limit - 200 : 1000;
}
