/**
 * ManagedMcpClient over Streamable HTTP with server push: the server process is SIGKILLed and restarted on the same
 * port, so it has forgotten our session. Against our own server (`createStreamableHttpServer` fronting an
 * `McpServer`, `__fixtures__/crashy-server.ts http`) and `@modelcontextprotocol/server-everything`.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { memoryLogger } from "../../../log.ts";
import { freePort, startEverything, type Everything } from "../../../transport/http-client/__fixtures__/everything.ts";
import { StreamableHttpClientTransport } from "../../../transport/http-client/streamable-http-client.ts";
import { AgentdError } from "../../../wire/errors.ts";
import { RUN_ID_META_KEY } from "../../protocol/meta.ts";
import { CrashyState, next, records, RESOURCE, startCrashyHttp, textOf, until, type CrashyHttp } from "./__fixtures__/crashy.ts";
import { ManagedMcpClient } from "./managed-client.ts";

setDefaultTimeout(90_000);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const toolText = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("");

/** A managed client over HTTP; `push: false` opens no GET stream, so only a request can meet the lost session. */
async function managed(url: string, name: string, push = true) {
  const log = memoryLogger();
  const client = new ManagedMcpClient({
    name,
    transportFactory: () =>
      new StreamableHttpClientTransport(url, {
        name,
        openGetStream: push,
        // The push stream retries quickly and long enough to see the server come back.
        reconnect: { initialDelayMs: 50, maxDelayMs: 300, growFactor: 1.5, maxRetries: 200 },
      }),
    clientInfo: { name: "test", version: "0" },
    reconnect: { initialDelayMs: 20, maxDelayMs: 300 },
    logger: log,
  });
  cleanups.push(() => client.close());
  await client.start({ timeoutMs: 30_000 });
  return { client, log };
}

describe("ManagedMcpClient over HTTP, our own server", () => {
  async function crashy(): Promise<{ state: CrashyState; server: () => CrashyHttp; restart: () => Promise<void> }> {
    const state = new CrashyState("v1");
    cleanups.push(() => state.dispose());
    let server = await startCrashyHttp(state);
    cleanups.push(() => server.kill());
    const port = Number(new URL(server.url).port);
    return {
      state,
      server: () => server,
      restart: async () => {
        await server.kill();
        server = await startCrashyHttp(state, port);
      },
    };
  }

  test("killed and restarted on the same port: re-initialized transparently, the subscription keeps firing", async () => {
    const { state, server, restart } = await crashy();
    const { client, log } = await managed(server().url, "crashy");
    const updates: string[] = [];
    client.onResourceUpdated((uri) => updates.push(uri));
    expect(client.supportsSubscribe()).toBe(true);
    await client.subscribe(RESOURCE);
    await until(() => client.current !== undefined, "connected");
    await client.callTool("set", { text: "before" });
    await until(() => updates.length === 1, "an update before the restart");

    const reconnected = next(client.events, "reconnected", 60_000);
    await restart();
    state.setResource("changed while down");
    await reconnected;
    // The push stream met the lost session first (nothing else was in flight).
    expect(records(log, "mcp.disconnected")[0]).toMatchObject({ server: "crashy", reason: "session-expired" });
    expect(textOf(await client.readResource(RESOURCE))).toBe("changed while down");

    await client.callTool("set", { text: "after" });
    await until(() => updates.length === 2, "an update from the restarted server (re-subscribed)");
    expect(updates).toEqual([RESOURCE, RESOURCE]);
    expect(textOf(await client.readResource(RESOURCE))).toBe("after");
  });

  test("a read that hits the 404 is retried once after re-initialize", async () => {
    const { server, restart } = await crashy();
    const { client, log } = await managed(server().url, "crashy", false);
    await client.subscribe(RESOURCE);
    await restart();
    expect(textOf(await client.readResource(RESOURCE))).toBe("v1");
    expect(records(log, "mcp.retry")).toMatchObject([{ method: "resources/read", reason: "session-expired" }]);
    expect(records(log, "mcp.reconnected")[0]).toMatchObject({ subscriptions: 1 });
  });

  test("a tools/call carrying the run id is retried once after re-initialize; it runs exactly once", async () => {
    const { state, server, restart } = await crashy();
    const { client, log } = await managed(server().url, "crashy", false);
    await client.listTools();
    await restart();
    expect(toolText(await client.callTool("bump", {}, { runId: "run-7" }))).toBe("bumped");
    expect(records(log, "mcp.retry")).toMatchObject([{ method: "tools/call", reason: "session-expired" }]);
    const bumps = state.calls().filter((c) => c.name === "bump");
    expect(bumps).toHaveLength(1);
    expect(bumps[0]!.meta[RUN_ID_META_KEY]).toBe("run-7");
  });

  test("a tools/call without a run id in _meta is not retried", async () => {
    const { state, server, restart } = await crashy();
    const { client, log } = await managed(server().url, "crashy", false);
    await restart();
    const reconnected = next(client.events, "reconnected", 60_000);
    const error = await client.request("tools/call", { name: "bump", arguments: {} }).catch((e: unknown) => e);
    expect(AgentdError.isInstance(error) && error.code).toBe("E_CONNECTION_CLOSED");
    expect((error as Error).message).toContain(
      "tools/call was interrupted (the server lost the session; not replayed: it carries no run id",
    );
    expect(records(log, "mcp.retry")).toEqual([]);
    expect(state.calls().filter((c) => c.name === "bump")).toEqual([]);
    // The connection itself is re-established for later calls.
    await reconnected;
    expect(toolText(await client.callTool("echo", { text: "later" }))).toBe("later");
  });
});

describe("ManagedMcpClient over HTTP, server-everything", () => {
  test("killed and restarted on the same port: re-initialized and re-subscribed; updates fire again once re-enabled", async () => {
    const port = freePort();
    let server: Everything = await startEverything(port);
    cleanups.push(() => server.kill());
    const { client, log } = await managed(server.url, "everything");
    const uri = "demo://resource/dynamic/text/1";
    const updates: string[] = [];
    client.onResourceUpdated((u) => updates.push(u));
    expect(client.supportsSubscribe()).toBe(true);
    await client.subscribe(uri);
    await client.callTool("toggle-subscriber-updates", {});
    await until(() => updates.includes(uri), "an update before the restart", 30_000);

    const reconnected = next(client.events, "reconnected", 60_000);
    await server.kill();
    server = await startEverything(port);
    await reconnected;
    expect(records(log, "mcp.disconnected")[0]).toMatchObject({ reason: "session-expired" });
    expect(records(log, "mcp.resubscribe_failed")).toEqual([]);
    expect(client.subscriptions()).toEqual([uri]);

    // server-everything simulates updates per session, only after `toggle-subscriber-updates`, and only for
    // URIs that session subscribed to. The restarted server knows neither: the toggle is its own per-session
    // switch (our job is the subscription), so turn it on again; an update then proves the re-subscription.
    updates.length = 0;
    await client.callTool("toggle-subscriber-updates", {});
    await until(() => updates.includes(uri), "an update from the restarted server", 30_000);
  });
});
