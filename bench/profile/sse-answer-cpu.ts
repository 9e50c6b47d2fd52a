/**
 * Profiling aid (not part of `bun bench/run.ts`): the CPU of an SSE answer's own steps, in process, per lone
 * request — the writer, the POST's stream and its priming event, the response routed, numbered and kept for
 * `Last-Event-ID` replay (the session's store and the server-wide budget), the stream ended, the body taken
 * (the server's set of writers for keep-alives is left out) — over 64 sessions in the steady state the
 * benchmark's load makes. No HTTP and no MCP layer: what the transport's SSE answer adds to a request, where
 * a change of 100 ns is below what `rps-cpu.ts` resolves on this machine (one round to the next moves the
 * server's CPU per request by ±10%).
 *
 *   bun bench/profile/sse-answer-cpu.ts [ROUNDS=6] [DIR…]      (default: this checkout)
 *
 * Each round runs every checkout once, in order, each in a child of its own (2,000,000 requests after
 * 1,000,000 of warm-up), and prints ns per request; then the medians and, against the first checkout, how
 * many rounds each other one was lower in.
 */
import { BUN, ROOT } from "../lib/proc.ts";

const WARM = 1_000_000;
const COUNT = 2_000_000;

if (process.env.SSE_ANSWER_CHILD) await child(process.env.SSE_ANSWER_CHILD);
else await parent(Number(process.argv[2] ?? 6), process.argv.length > 3 ? process.argv.slice(3) : [ROOT]);

async function parent(rounds: number, dirs: string[]): Promise<void> {
  const rows: number[][] = dirs.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [i, dir] of dirs.entries()) {
      const proc = Bun.spawnSync([BUN, import.meta.path], { env: { ...process.env, SSE_ANSWER_CHILD: dir }, stderr: "inherit" });
      if (proc.exitCode !== 0) throw new Error(`${dir}: exited ${proc.exitCode}`);
      rows[i]!.push(Number(proc.stdout.toString().trim()));
    }
    console.log(`round ${r + 1}:`, rows.map((xs) => xs.at(-1)!.toFixed(0)).join(" "), "ns");
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [i, dir] of dirs.entries()) {
    const lower = i === 0 ? "" : `, lower than ${dirs[0]} in ${rows[i]!.filter((x, r) => x < rows[0]![r]!).length} of ${rounds}`;
    console.log(`${dir}: median ${median(rows[i]!).toFixed(0)} ns per request${lower}`);
  }
}

/** One checkout's figure: ns of CPU per request, printed alone. */
async function child(dir: string): Promise<void> {
  const at = `${dir}/packages/sdk/src/transport/http-server`;
  const { Session } = await import(`${at}/session.ts`);
  const { SseWriter } = await import(`${at}/sse-writer.ts`);
  const { ReplayBudget } = await import(`${at}/replay-budget.ts`);
  const quiet = () => {};
  const logger = { debug: quiet, info: quiet, warn: quiet, error: quiet, log: quiet };
  // The server's defaults (`options.ts`).
  const settings = {
    eventStoreEvents: 256,
    eventStoreBytes: 4 * 1024 * 1024,
    replayBudget: new ReplayBudget(64 * 1024 * 1024),
    retryMs: 1000,
    maxStreams: 16,
    logger,
    onended: quiet,
  };
  // The server's writer set (`handler.ts`, keep-alives and stats) is left out: a hook that does nothing.
  const hook = { writerEnded: quiet };
  const sessions = Array.from({ length: 64 }, (_, i) => {
    const s = new Session(`${i}`.padStart(36, "0"), "", settings);
    s.setProtocolVersion("2025-11-25");
    s.clientInitialized();
    return s;
  });
  let bytes = 0;
  const run = (n: number, from: number) => {
    for (let i = from; i < from + n; i++) {
      const session = sessions[i & 63];
      const writer = new SseWriter(1 << 20, hook);
      session.openPostStream([i], writer);
      session.send({ jsonrpc: "2.0", id: i, result: { content: [{ type: "text", text: "hello" }] } });
      bytes += (writer.takeBody() as string).length;
    }
  };
  run(WARM, 0);
  const before = process.cpuUsage();
  run(COUNT, WARM);
  const used = process.cpuUsage(before);
  if (bytes === 0) throw new Error("no body was written");
  console.log((((used.user + used.system) * 1000) / COUNT).toFixed(1));
}
