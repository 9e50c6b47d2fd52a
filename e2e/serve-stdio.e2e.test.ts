/**
 * `agentd serve --stdio` driven by the official `@modelcontextprotocol/sdk` Client over StdioClientTransport
 * (which spawns `bun packages/cli/src/main.ts serve --stdio`): the same surface as over HTTP — tools,
 * `agent.run` with progress, `agent://status` updates, server notifications logging — and a clean exit when stdin closes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { CLI_MAIN } from "@agentd/test-support/cli-process";
import { Collector, tapMessages } from "./__fixtures__/serve/collector.ts";
import { API_KEY, echoThenAnswer, gate, serveWorld } from "./__fixtures__/serve/serve-env.ts";

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
let pid: number | null = null;
afterEach(async () => {
  // Whatever happened, the child goes: by its PID.
  if (pid !== null) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
    pid = null;
  }
  await world?.close();
  world = undefined;
}, 30_000);

describe("agentd serve --stdio with the official SDK client", () => {
  test("tools, agent.run with progress, status updates, logging; exits cleanly when stdin closes", async () => {
    world = await serveWorld(echoThenAnswer());
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_MAIN, "serve", "--stdio", "--notifications", "--config", world.config],
      env: { ...world.env, AGENT_LOG_FORMAT: "json" },
      cwd: world.ws.dir,
      stderr: "pipe",
    });
    const stderr = new Collector<Record<string, any>>();
    let buffered = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith("{")) stderr.push(JSON.parse(line));
      }
    });
    const client = new Client({ name: "serve-proof-stdio", version: "1.0.0" });
    const updates = new Collector<string>();
    const logs = new Collector<{ level: string; data: any }>();
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
    await client.connect(transport);
    const wire = tapMessages(transport);
    pid = transport.pid;
    expect(pid).toBeGreaterThan(0);

    expect(client.getServerVersion()?.name).toBe("agentd");
    expect(client.getServerCapabilities()?.logging).toBeDefined();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("agent.run");
    await client.setLoggingLevel("info");
    await client.subscribeResource({ uri: "agent://status" });

    const progress: (string | undefined)[] = [];
    const result = await client.callTool(
      { name: "agent.run", arguments: { instruction: "Say hello through the echo tool", runId: "run-stdio-1" } },
      undefined,
      { onprogress: (p) => progress.push(p.message) },
    );
    expect(result.content).toEqual([{ type: "text", text: "The tool said: echo: hello over serve" }]);
    // On the wire: one progress per model turn and tool result, in order, all before the response.
    const answered = wire.items.findIndex((m) => m.result?.structuredContent?.runId === "run-stdio-1");
    const sent = wire.items.slice(0, answered).filter((m) => m.method === "notifications/progress");
    expect(sent.map((m) => m.params.message)).toEqual([
      "turn 1: model answered with 1 tool call(s)",
      expect.stringMatching(/^tool rec.echo returned \(\d+ms\)$/),
      "turn 2: model answered",
    ]);
    expect(sent.map((m) => m.params.progress)).toEqual([1, 2, 3]);
    // The SDK's onprogress saw them in order (the last can race the response inside the SDK: see tapMessages).
    expect(progress.slice(0, 2)).toEqual(sent.slice(0, 2).map((m) => m.params.message));

    await updates.waitFor((u) => u === "agent://status");
    const readJson = async (uri: string) => {
      const content = (await client.readResource({ uri })).contents[0]!;
      return JSON.parse("text" in content ? content.text : "null");
    };
    const status = await readJson("agent://status");
    expect(status).toMatchObject({ state: "idle", runsSucceeded: 1 });
    const run = await readJson("agent://runs/run-stdio-1");
    expect(run).toMatchObject({ status: "succeeded", turns: 2, toolCalls: 1 });
    await logs.waitFor((l) => l.data?.event === "run.end");
    expect(JSON.stringify(logs.items)).not.toContain(API_KEY);

    // Closing the client closes agentd's stdin: it drains and stops by itself, before the SDK would signal it.
    await client.close();
    expect(await stderr.waitFor((e) => e.event === "serve.stopped")).toMatchObject({ signal: "stdin-closed" });
    expect(world.ws.received().find((m) => m.method === "tools/call")?.params?._meta?.["agentd.dev/run-id"]).toBe("run-stdio-1");
  }, 30_000);
});

describe("agentd serve --stdio when stdin ends", () => {
  test("a run in flight at EOF finishes within --grace and is answered; the unterminated last line counts", async () => {
    const answerNow = gate();
    const asked = gate();
    world = await serveWorld([
      async () => {
        asked.open();
        await answerNow.promise;
        return { text: "answered after EOF" };
      },
    ]);
    const proc = Bun.spawn([process.execPath, CLI_MAIN, "serve", "--stdio", "--grace", "60s", "--config", world.config], {
      cwd: world.ws.dir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
        ...world.env,
        AGENT_LOG_FORMAT: "json",
      },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    pid = proc.pid;
    const out = Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    const frames = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "eof", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "agent.run", arguments: { instruction: "Answer late" } } },
    ];
    proc.stdin.write(frames.map((f) => JSON.stringify(f)).join("\n")); // no newline after the last request
    await proc.stdin.end();
    await asked.promise; // the model was asked after stdin had ended: the run is in flight at EOF
    answerNow.open();
    expect(await proc.exited).toBe(0);
    const [stdout, stderr] = await out;
    const answer = stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((m) => m.id === 2);
    expect(answer?.result?.content).toEqual([{ type: "text", text: "answered after EOF" }]);
    expect(stderr).toContain('"event":"serve.stopped"');
  }, 30_000);
});
