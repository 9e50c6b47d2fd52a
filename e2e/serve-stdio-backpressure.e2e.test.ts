/**
 * `agentd serve --stdio` with 100,000 pipelined requests and its stdout not read: it stops reading stdin
 * instead of piling the answers up in memory (RSS stays within 60 MB of where it started; it grew by about
 * 140 MB before), and once the reader reads, every request has exactly one answer.
 */
import { afterEach, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";

const N = 100_000;
let child: ChildProcess | undefined;
let ws: CliWorkspace | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child!.once("exit", r));
    child.kill("SIGKILL");
    await gone;
  }
  child = undefined;
  ws?.cleanup();
  ws = undefined;
});

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

test.skipIf(process.platform !== "linux")(
  "100,000 pipelined pings, stdout unread: bounded memory; then one answer per request",
  async () => {
    ws = new CliWorkspace();
    const config = ws.writeConfig({});
    child = spawn(process.execPath, [CLI_MAIN, "serve", "--stdio", "--config", config], {
      cwd: ws.dir,
      stdio: ["pipe", "pipe", "ignore"],
      // No model is asked for anything here: ping and initialize are answered by the server itself.
      env: { PATH: process.env.PATH ?? "", AGENT_INTELLIGENCE: "http://127.0.0.1:9/v1", AGENT_MODEL: "m", AGENT_DIALECT: "openai" },
    });
    const { stdin, stdout } = child as { stdin: NonNullable<ChildProcess["stdin"]>; stdout: NonNullable<ChildProcess["stdout"]> };
    let text = "";
    let lines = 0;
    let wake = () => {};
    stdout.setEncoding("utf8");
    stdout.on("data", (s: string) => {
      text += s;
      for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) lines++;
      wake();
    });
    const linesReach = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (lines >= n ? resolve() : (wake = check));
        check();
      });
    stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n` +
        `{"jsonrpc":"2.0","method":"notifications/initialized"}\n`,
    );
    await linesReach(1);
    stdout.pause();
    const baseline = rssMb(child.pid!);

    let accepted = 0;
    const writing = (async () => {
      for (let id = 1; id <= N; id += 1000) {
        let batch = "";
        const end = Math.min(id + 1000, N + 1);
        for (let i = id; i < end; i++) batch += `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`;
        if (!stdin.write(batch, () => (accepted = end - 1))) await new Promise((r) => stdin.once("drain", r));
      }
    })();
    // Sample until everything was taken or nothing has moved for 2 s (it stopped reading: what we test).
    let peak = baseline;
    let last = -1;
    let still = 0;
    const deadline = Date.now() + 120_000;
    while (accepted < N && still < 20 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      peak = Math.max(peak, rssMb(child.pid!));
      still = accepted === last ? still + 1 : 0;
      last = accepted;
    }
    expect(peak - baseline).toBeLessThan(60);
    expect(accepted).toBeLessThan(N);

    stdout.resume();
    await writing;
    await linesReach(N + 1);
    stdin.end();
    await new Promise((r) => child!.once("exit", r));
    // Every request answered exactly once: a result, or the in-flight limit's error (itself an answer).
    const ids = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: unknown; result?: unknown; error?: { code: number } });
    expect(ids).toHaveLength(N + 1);
    const seen = new Set(ids.map((m) => m.id));
    expect(seen.size).toBe(N + 1);
    expect(ids.filter((m) => m.result === undefined && m.error === undefined)).toEqual([]);
  },
  180_000,
);
