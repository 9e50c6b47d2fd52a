/**
 * Back-pressure on stdio, both sides, with real processes and pipes: a peer that pipelines requests and
 * does not read our answers cannot grow our memory, because we stop reading while the answers wait; and
 * once it reads, every answer arrives, byte for byte.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../log.ts";
import type { JsonRpcMessage } from "../wire/jsonrpc.ts";
import { StdioChildTransport } from "./stdio-child.ts";
import { StreamTransport } from "./stdio-streams.ts";
import { SPAWN_APIS } from "./__fixtures__/spawn-api.ts";

const FIXTURES = join(import.meta.dir, "__fixtures__");
const TEST_TIMEOUT = 180_000;

const children: ChildProcess[] = [];
const transports: StdioChildTransport[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      const gone = new Promise((r) => c.once("exit", r));
      c.kill("SIGKILL");
      await gone;
    }
  }
}, TEST_TIMEOUT);

/** Resident set size of `pid` in MB (Linux). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
}

/**
 * Sample `progress()` every 100 ms until it reaches `done` or has not moved for 2 s (the peer stopped
 * taking input: that is the behaviour under test, and the bound asserted must hold at any moment anyway,
 * so stopping early on a slow machine only measures sooner). Calls `sample` at each tick.
 */
async function untilDoneOrStalled(progress: () => number, done: number, sample: () => void): Promise<void> {
  let last = -1;
  let still = 0;
  const deadline = Date.now() + 120_000;
  while (progress() < done && still < 20 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    sample();
    const now = progress();
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

const answerLine = (id: number, pad: string) => `{"jsonrpc":"2.0","id":${id},"result":{"pad":"${pad}"}}\n`;

describe("stdio back-pressure", () => {
  test(
    "server side: 50,000 pipelined requests with stdout unread keep RSS within 40 MB of the start; then every answer arrives",
    async () => {
      const N = 50_000;
      const PAD = 2000; // ~100 MB of answers in all: held in memory, they would blow the bound
      const pad = "x".repeat(PAD);
      const child = spawn(process.execPath, [join(FIXTURES, "answer-server.ts"), String(PAD)], { stdio: ["pipe", "pipe", "inherit"] });
      children.push(child);
      const stdin = child.stdin!;
      const stdout = child.stdout!;

      // One request answered first: the server is up and warm before the baseline is taken.
      const chunks: Buffer[] = [];
      let bytes = 0;
      let lines = 0;
      let waiter: (() => void) | undefined;
      stdout.on("data", (b: Buffer) => {
        chunks.push(b);
        bytes += b.length;
        for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) lines++;
        waiter?.();
      });
      const linesReach = (n: number) =>
        new Promise<void>((resolve) => {
          const check = () => (lines >= n ? resolve() : (waiter = check));
          check();
        });
      stdin.write(`{"jsonrpc":"2.0","id":0,"method":"ping"}\n`);
      await linesReach(1);
      stdout.pause();
      const baseline = rssMb(child.pid!);

      let accepted = 0;
      const writing = (async () => {
        for (let id = 1; id <= N; id += 1000) {
          let batch = "";
          const end = Math.min(id + 1000, N + 1);
          for (let i = id; i < end; i++) batch += `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`;
          const ok = stdin.write(batch, () => (accepted = end - 1));
          if (!ok) await new Promise((r) => stdin.once("drain", r));
        }
      })();
      let peak = baseline;
      await untilDoneOrStalled(
        () => accepted,
        N,
        () => (peak = Math.max(peak, rssMb(child.pid!))),
      );
      peak = Math.max(peak, rssMb(child.pid!));
      expect(peak - baseline).toBeLessThan(40);
      // It stopped reading: most of the requests are still waiting on our side of its stdin.
      expect(accepted).toBeLessThan(N);

      stdout.resume();
      await writing;
      await linesReach(N + 1);
      stdin.end();
      await new Promise((r) => child.once("exit", r));
      let expected = 0;
      for (let id = 0; id <= N; id++) expected += answerLine(id, pad).length;
      expect(lines).toBe(N + 1);
      expect(bytes).toBe(expected);
      const text = Buffer.concat(chunks).toString("utf8");
      expect(text.slice(-answerLine(N, pad).length)).toBe(answerLine(N, pad));
    },
    TEST_TIMEOUT,
  );

  for (const spawnApi of SPAWN_APIS)
    test(
      `client side [${spawnApi}]: a server flooding us with requests and not reading our answers is not read either; then all are answered`,
      async () => {
        const COUNT = 50_000;
        let summary: (line: string) => void = () => {};
        const answered = new Promise<string>((r) => (summary = r));
        const t = new StdioChildTransport({
          name: "flood",
          spawnApi,
          command: process.execPath,
          args: [join(FIXTURES, "flood-client.ts"), String(COUNT)],
          env: { PATH: process.env.PATH ?? "" },
          outputHighWaterMark: 64 * 1024,
          logger: createLogger((r) => {
            if (r.event === "mcp.stderr" && String(r.line).startsWith("answers")) summary(String(r.line));
          }),
        });
        transports.push(t);
        let received = 0;
        t.onmessage = (m) => {
          received++;
          const id = (m as { id: number }).id;
          void t.send({ jsonrpc: "2.0", id, result: {} } as JsonRpcMessage).catch(() => {});
        };
        await t.start();
        await untilDoneOrStalled(
          () => received,
          COUNT,
          () => {},
        );
        // 64 KiB of answers (~1,700) plus what the pipes and one read hold: far from all 50,000.
        expect(received).toBeLessThan(20_000);

        process.kill(t.pid!, "SIGUSR1");
        const line = await answered;
        let expected = 0;
        for (let id = 0; id < COUNT; id++) expected += `{"jsonrpc":"2.0","id":${id},"result":{}}\n`.length;
        expect(line).toBe(`answers ${COUNT} bytes ${expected}`);
        expect(received).toBe(COUNT);
      },
      TEST_TIMEOUT,
    );

  test("web streams: no more reads while answers wait unread; reading resumes once the peer takes them", async () => {
    const TOTAL = 2000;
    let pulls = 0;
    const enc = new TextEncoder();
    const input = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          if (pulls === TOTAL) return new Promise<void>(() => {}); // stays open: an end would close the transport
          c.enqueue(enc.encode(`{"jsonrpc":"2.0","id":${pulls++},"method":"ping"}\n`));
        },
      },
      { highWaterMark: 0 },
    );
    // The peer does not read: every write waits until `release()`.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const output = new WritableStream<Uint8Array>({
      async write() {
        await released;
      },
    });
    const t = new StreamTransport(input, output, { outputHighWaterMark: 1000 });
    let answered = 0;
    const allAnswered = new Promise<void>((resolve) => {
      t.onmessage = (m) => {
        void t
          .send({ jsonrpc: "2.0", id: (m as { id: number }).id, result: {} } as JsonRpcMessage)
          .then(() => ++answered === TOTAL && resolve())
          .catch(() => {});
      };
    });
    await t.start();
    for (let i = 0; i < 1000 && !t.isInputPaused; i++) await new Promise((r) => setTimeout(r, 1));
    expect(t.isInputPaused).toBe(true);
    const pausedAt = pulls;
    // ~1000 characters of answers (30 answers of 34) pause it, well before all 2,000 requests were read.
    expect(pausedAt).toBeLessThan(100);
    await new Promise((r) => setTimeout(r, 20));
    expect(pulls).toBe(pausedAt);
    release();
    await allAnswered;
    expect(pulls).toBe(TOTAL);
    expect(t.isInputPaused).toBe(false);
    await t.close();
  });
});
