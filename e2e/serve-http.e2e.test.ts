/**
 * `agentd serve --http` driven by the official `@modelcontextprotocol/sdk` Client over
 * StreamableHTTPClientTransport: a real CLI process, a fake OpenAI-dialect gateway and the recording MCP
 * server as a stdio child. Covers initialize, tools, `agent.run` with progress, subscriptions to
 * `agent://status`, server notifications logging, a stream broken mid-run and resumed with `Last-Event-ID`, and DELETE.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { post, request, SseReader } from "@agentd/test-support/raw-mcp-http";
import { Collector, tapMessages } from "./__fixtures__/serve/collector.ts";
import { API_KEY, echoThenAnswer, gate, serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await stopAllServe();
  await world?.close();
  world = undefined;
}, 30_000);

async function startWorld(script = echoThenAnswer()) {
  world = await serveWorld(script);
  const serve = await startServe(["--http", "127.0.0.1:0", "--notifications", "--config", world.config, "--grace", "2s"], {
    env: world.env,
    cwd: world.ws.dir,
  });
  return { world, serve };
}

/** An official SDK client connected to `serve`, with its resource updates and log messages collected. */
async function connectClient(serve: ServeProcess) {
  const client = new Client({ name: "serve-proof", version: "1.0.0" });
  clients.push(client);
  const updates = new Collector<string>();
  const logs = new Collector<{ level: string; logger?: string; data: any }>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params.uri));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
  const transport = new StreamableHTTPClientTransport(serve.url);
  await client.connect(transport);
  const wire = tapMessages(transport);
  return { client, transport, updates, logs, wire };
}

/** A JSON text resource, parsed. */
async function readJson(client: Client, uri: string) {
  const content = (await client.readResource({ uri })).contents[0]!;
  if (!("text" in content)) throw new Error(`${uri} is not a text resource`);
  return JSON.parse(content.text);
}

describe("agentd serve --http with the official SDK client", () => {
  test("initialize, tools, agent.run with progress, status subscription, server notifications logging", async () => {
    const { world, serve } = await startWorld();
    const { client, updates, logs, wire } = await connectClient(serve);

    expect(client.getServerVersion()?.name).toBe("agentd");
    const caps = client.getServerCapabilities()!;
    expect(caps.tools).toBeDefined();
    expect(caps.resources?.subscribe).toBe(true);
    expect(caps.logging).toBeDefined();

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("agent.run");
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain("agent://status");
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("agent://runs/{runId}");

    await client.setLoggingLevel("info");
    await client.subscribeResource({ uri: "agent://status" });
    expect((await readJson(client, "agent://status")).state).toBe("idle");

    const progress: { progress: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: "agent.run", arguments: { instruction: "Say hello through the echo tool", runId: "run-http-1" } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "The tool said: echo: hello over serve" }]);
    expect(result.structuredContent).toMatchObject({ runId: "run-http-1", stopReason: "final", toolCalls: 1, turns: 2 });

    // One progress step per model turn and per tool result, in order, all on the wire before the response.
    const answered = wire.items.findIndex((m) => m.result?.structuredContent?.runId === "run-http-1");
    const sent = wire.items.slice(0, answered).filter((m) => m.method === "notifications/progress");
    expect(sent.map((m) => m.params.message)).toEqual([
      "turn 1: model answered with 1 tool call(s)",
      expect.stringMatching(/^tool rec.echo returned \(\d+ms\)$/),
      "turn 2: model answered",
    ]);
    expect(sent.map((m) => m.params.progress)).toEqual([1, 2, 3]);
    // The SDK's onprogress saw them in order (the last can race the response inside the SDK: see tapMessages).
    expect(progress.slice(0, 2)).toEqual(sent.slice(0, 2).map((m) => ({ progress: m.params.progress, message: m.params.message })));

    // agent://status changed while the run went (start, progress, end): each change was notified.
    await updates.waitFor((u) => u === "agent://status");
    const status = await readJson(client, "agent://status");
    expect(status).toMatchObject({ state: "idle", runsStarted: 1, runsSucceeded: 1, running: [] });
    expect(await readJson(client, "agent://runs/run-http-1")).toMatchObject({ runId: "run-http-1", status: "succeeded", toolCalls: 1 });

    // agentd's telemetry is mirrored as notifications/message at or above the level set, never a secret.
    const end = await logs.waitFor((l) => l.data?.event === "run.end");
    expect(end).toMatchObject({ level: "info", logger: "agentd" });
    // The run's own debug records (model.end) are filtered out by the level set before it started.
    const runLogs = logs.items.filter((l) => l.data?.runId === "run-http-1");
    expect(runLogs.map((l) => l.data.event)).toContain("tool.call.start");
    expect(runLogs.filter((l) => l.level === "debug")).toEqual([]);
    expect(JSON.stringify(logs.items)).not.toContain(API_KEY);

    // The run id reached the upstream MCP server in _meta; the model saw agentd's tools.
    const call = world.ws.received().find((m) => m.method === "tools/call");
    expect(call?.params?._meta?.["agentd.dev/run-id"]).toBe("run-http-1");
    expect(serve.events().some((e) => JSON.stringify(e).includes(API_KEY))).toBe(false);
  }, 30_000);

  test("a stream broken mid-run is resumed with Last-Event-ID: nothing lost, nothing repeated", async () => {
    const answer = gate();
    const { world, serve } = await startWorld(echoThenAnswer(answer.promise));
    const { client, transport, updates } = await connectClient(serve);
    await client.subscribeResource({ uri: "agent://runs/run-resume" });
    const headers = { "mcp-session-id": transport.sessionId!, "mcp-protocol-version": transport.protocolVersion ?? "2025-11-25" };

    // Raw POST in the SDK client's session, so event ids and the break are in the test's hands.
    const params = { name: "agent.run", arguments: { instruction: "go", runId: "run-resume" }, _meta: { progressToken: "p-resume" } };
    const res = await post(serve.url, request(77, "tools/call", params), headers);
    expect(res.status).toBe(200);
    const first = new SseReader(res);
    const seen: { id: string | undefined; message: Record<string, any> }[] = [];
    while (seen.length < 2) seen.push((await first.nextMessage())!);
    expect(seen.map((m) => m.message.params?.progress)).toEqual([1, 2]);
    await first.cancel(); // the network breaks after the tool result; the model has not answered yet

    await world.gateway.waitForRequests(2);
    answer.open();
    // Wait until the run has finished while nobody was listening on its stream.
    await updates.waitFor((u) => u === "agent://runs/run-resume");
    for (let i = 0; (await readJson(client, "agent://runs/run-resume")).status !== "succeeded"; i++)
      await updates.waitFor((u) => u === "agent://runs/run-resume", i + 1);

    const lastId = seen.at(-1)!.id!;
    const resumed = await fetch(serve.url, { headers: { ...headers, accept: "text/event-stream", "last-event-id": lastId } });
    expect(resumed.status).toBe(200);
    const replay = await new SseReader(resumed).until(77);
    const [stream, seq] = lastId.split(".").map(Number) as [number, number];
    expect(replay.map((m) => m.id)).toEqual([`${stream}.${seq + 1}`, `${stream}.${seq + 2}`]);
    expect(replay[0]!.message).toMatchObject({ method: "notifications/progress", params: { progressToken: "p-resume", progress: 3 } });
    expect(replay[1]!.message).toMatchObject({
      id: 77,
      result: { content: [{ type: "text", text: "The tool said: echo: hello over serve" }] },
    });

    // An id the session never issued is refused, not answered with another stream's events.
    const bogus = await fetch(serve.url, { headers: { ...headers, accept: "text/event-stream", "last-event-id": "not-an-id" } });
    expect(bogus.status).toBe(400);
  }, 30_000);

  test("DELETE ends the session: its id then answers 404, other sessions carry on", async () => {
    const { serve } = await startWorld();
    const a = await connectClient(serve);
    const b = await connectClient(serve);
    const headers = { "mcp-session-id": a.transport.sessionId!, "mcp-protocol-version": a.transport.protocolVersion ?? "2025-11-25" };
    await a.transport.terminateSession();
    expect(a.transport.sessionId).toBeUndefined();

    const after = await post(serve.url, request(1, "ping"), headers);
    expect(after.status).toBe(404);
    await after.body?.cancel();
    const get = await fetch(serve.url, { headers: { ...headers, accept: "text/event-stream" } });
    expect(get.status).toBe(404);
    await get.body?.cancel();
    expect(await b.client.ping()).toEqual({});
    await serve.waitForEvent((e) => e.event === "http.session.end" && e.reason === "deleted by client");
  }, 30_000);

  test("SIGTERM drains: no new work, /readyz 503, the in-flight run is answered, then exit 143", async () => {
    const answer = gate();
    const { world, serve } = await startWorld(echoThenAnswer(answer.promise));
    const { client } = await connectClient(serve);
    const running = client.callTool({ name: "agent.run", arguments: { instruction: "finish me", runId: "run-drain" } });
    await world.gateway.waitForRequests(2); // the run is waiting on the model's second answer
    process.kill(serve.pid, "SIGTERM");
    expect(await serve.waitForEvent((e) => e.event === "serve.draining")).toMatchObject({ signal: "SIGTERM", running: 1 });

    const ready = await fetch(new URL("/readyz", serve.url));
    expect(ready.status).toBe(503);
    expect(await ready.text()).toBe("draining\n");
    const refused = await client.callTool({ name: "agent.run", arguments: { instruction: "too late" } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("shutting down");

    answer.open();
    const result = await running;
    expect(result.structuredContent).toMatchObject({ runId: "run-drain", stopReason: "final" });
    expect(await serve.exited).toBe(143);
    expect(serve.events().find((e) => e.event === "serve.stopped")).toMatchObject({ signal: "SIGTERM" });
  }, 30_000);
});
