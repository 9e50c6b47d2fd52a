/**
 * `agentd serve --stdio` (and `--http`, on one endpoint) is dual-era: the official v2 client (`@modelcontextprotocol/client` 2.4, which
 * probes with `server/discover` on a sibling process, then speaks per-request `_meta`) negotiates
 * 2026-07-28 — tools, `agent.run`, `agent://status` through `subscriptions/listen` — while the 1.32.2 SDK
 * client keeps the `initialize` handshake and 2025-11-25. Every message agentd sends the v2 client
 * validates against the official 2026-07-28 schema.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CLI_MAIN } from "@agentd/test-support/cli-process";
import { Collector, tapMessages } from "./__fixtures__/serve/collector.ts";
import { echoThenAnswer, serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";
import { NEEDS_SHARED, sharedSpecsAvailable, validateOfficial } from "@agentd/test-support/oracle";

/** What agentd sent the v2 client in the first test, checked against the official schema in the last. */
let statelessWire: Record<string, any>[] = [];

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
const pids: number[] = [];
afterEach(async () => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await stopAllServe();
  await world?.close();
  world = undefined;
}, 30_000);

const serveArgs = (config: string) => [CLI_MAIN, "serve", "--stdio", "--config", config];

describe("agentd serve --stdio with the official v2 client", () => {
  test("negotiates 2026-07-28: tools, agent.run, agent://status updates through subscriptions/listen", async () => {
    world = await serveWorld(echoThenAnswer());
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: serveArgs(world.config),
      env: { ...world.env },
      cwd: world.ws.dir,
      stderr: "pipe",
    });
    const client = new Client({ name: "v2-client", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
    const updates = new Collector<string>();
    client.setNotificationHandler("notifications/resources/updated", (n) => updates.push(n.params.uri));
    await client.connect(transport);
    const wire = tapMessages(transport);
    if (transport.pid) pids.push(transport.pid);
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(client.getServerVersion()?.name).toBe("agentd");
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);

    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("agent.run");
    const subscription = await client.listen({ resourceSubscriptions: ["agent://status"] });
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ["agent://status"] });

    const result = await client.callTool({
      name: "agent.run",
      arguments: { instruction: "Say hello through the echo tool", runId: "run-v2-1" },
    });
    expect(result.content).toEqual([{ type: "text", text: "The tool said: echo: hello over serve" }]);
    await updates.waitFor((u) => u === "agent://status");
    const content = (await client.readResource({ uri: "agent://status" })).contents[0]!;
    expect(JSON.parse("text" in content ? content.text : "null")).toMatchObject({ state: "idle", runsSucceeded: 1 });

    await subscription.close();
    expect(await subscription.closed).toBe("local");
    await client.close();

    // What agentd sent: modern results (resultType) and subscription-tagged notifications only.
    const results = wire.items.filter((m) => "result" in m);
    expect(results.length).toBeGreaterThan(2);
    expect(results.every((m) => m.result.resultType === "complete")).toBe(true);
    const updated = wire.items.filter((m) => m.method === "notifications/resources/updated");
    expect(updated.every((m) => typeof m.params._meta?.["io.modelcontextprotocol/subscriptionId"] === "string")).toBe(true);
    statelessWire = wire.items;
  }, 60_000);

  test.skipIf(!sharedSpecsAvailable())(
    `${NEEDS_SHARED} everything agentd sent the v2 client validates against the official 2026-07-28 schema`,
    () => {
      expect(statelessWire.length).toBeGreaterThan(4);
      const wrong = statelessWire.flatMap((m) => {
        const r = validateOfficial("2026-07-28", m);
        return r.ok ? [] : [`${JSON.stringify(m).slice(0, 160)}: ${r.errors}`];
      });
      expect(wrong).toEqual([]);
    },
  );

  test("the 1.32.2 SDK client keeps initialize and 2025-11-25 against the same command", async () => {
    world = await serveWorld(echoThenAnswer());
    const transport = new LegacyStdioClientTransport({
      command: process.execPath,
      args: serveArgs(world.config),
      env: { ...world.env },
      cwd: world.ws.dir,
      stderr: "pipe",
    });
    const client = new LegacyClient({ name: "v1-client", version: "1.32.2" });
    // The SDK tells a transport the negotiated version when the transport can take it.
    let negotiated: string | undefined;
    (transport as unknown as { setProtocolVersion(v: string): void }).setProtocolVersion = (v) => (negotiated = v);
    await client.connect(transport);
    expect(negotiated).toBe("2025-11-25");
    if (transport.pid) pids.push(transport.pid);
    // The handshake happened (server info came with it) and ping, which 2026-07-28 removed, is answered.
    expect(client.getServerVersion()?.name).toBe("agentd");
    await client.ping();
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("agent.run");
    expect((tools as Record<string, unknown>).resultType).toBeUndefined();
    await client.close();
  }, 60_000);

  test("over --http, the same endpoint: the v2 client gets 2026-07-28 and no session, the 1.32.2 client a 2025-11-25 session", async () => {
    world = await serveWorld(echoThenAnswer());
    const serve = await startServe(["--http", "127.0.0.1:0", "--config", world.config, "--grace", "2s"], {
      env: world.env,
      cwd: world.ws.dir,
    });
    const transport = new StreamableHTTPClientTransport(serve.url);
    const client = new Client({ name: "v2-client", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
    const updates = new Collector<string>();
    client.setNotificationHandler("notifications/resources/updated", (n) => updates.push(n.params.uri));
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(transport.sessionId).toBeUndefined();
    const subscription = await client.listen({ resourceSubscriptions: ["agent://status"] });
    const result = await client.callTool({
      name: "agent.run",
      arguments: { instruction: "Say hello through the echo tool", runId: "run-v2-http" },
    });
    expect(result.content).toEqual([{ type: "text", text: "The tool said: echo: hello over serve" }]);
    await updates.waitFor((u) => u === "agent://status");
    // Another request, another (ephemeral) server session: the run is still there.
    const run = (await client.readResource({ uri: "agent://runs/run-v2-http" })).contents[0]!;
    expect(JSON.parse("text" in run ? run.text : "null")).toMatchObject({ status: "succeeded" });
    await subscription.close();
    await client.close();

    const legacy = new LegacyClient({ name: "v1-client", version: "1.32.2" });
    const legacyTransport = new LegacyHttp(serve.url);
    await legacy.connect(legacyTransport);
    expect(legacyTransport.protocolVersion).toBe("2025-11-25");
    expect(legacyTransport.sessionId).toBeDefined();
    expect((await legacy.listTools()).tools.map((t) => t.name)).toContain("agent.run");
    await legacy.close();
  }, 60_000);
});
