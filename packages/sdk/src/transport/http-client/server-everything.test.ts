/**
 * The client transport against `@modelcontextprotocol/server-everything` (streamableHttp mode), a real
 * child process forced onto 127.0.0.1, driven with raw JSON-RPC messages.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { AgentdError } from "../../wire/errors.ts";
import { collect, initializeParams, type Collected } from "./__fixtures__/collect.ts";
import { freePort, startEverything, type Everything } from "./__fixtures__/everything.ts";
import { StreamableHttpClientTransport } from "./streamable-http-client.ts";

const T = 90_000;
const running: Everything[] = [];
let client: StreamableHttpClientTransport | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await Promise.all(running.splice(0).map((s) => s.kill()));
});

async function start(port = freePort()): Promise<Everything> {
  const s = await startEverything(port);
  running.push(s);
  return s;
}

async function initialize(t: StreamableHttpClientTransport, c: Collected): Promise<void> {
  const init = await c.request("initialize", initializeParams());
  expect(init.result.serverInfo.name).toBe("mcp-servers/everything");
  t.setProtocolVersion(init.result.protocolVersion);
  await t.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

describe("StreamableHttpClientTransport ⇄ server-everything", () => {
  test(
    "binds 127.0.0.1; tools, echo, progress, and resource updates on the GET stream",
    async () => {
      const server = await start();
      expect(server.bound.address).toBe("127.0.0.1");
      expect(new URL(server.url).port).toBe(String(server.bound.port));

      client = new StreamableHttpClientTransport(server.url, { name: "everything" });
      const c = collect(client, 60_000);
      await client.start();
      await initialize(client, c);
      expect(client.sessionId).toBeDefined();
      await c.until(() => client!.getStreamState === "open", "the GET stream to open");

      const tools = (await c.request("tools/list")).result.tools.map((t: { name: string }) => t.name);
      expect(tools).toEqual(expect.arrayContaining(["echo", "trigger-long-running-operation", "toggle-subscriber-updates"]));

      const echo = await c.request("tools/call", { name: "echo", arguments: { message: "hi 👋" } });
      expect(echo.result.content[0].text).toBe("Echo: hi 👋");

      const long = await c.request("tools/call", {
        name: "trigger-long-running-operation",
        arguments: { duration: 0.3, steps: 3 },
        _meta: { progressToken: "lro" },
      });
      expect(long.result.content[0].text).toContain("Long running operation completed");
      const progress = c.notes("notifications/progress").filter((n) => n.params.progressToken === "lro");
      expect(progress.map((n) => n.params.progress)).toEqual([1, 2, 3]);
      // Progress came before the response, on the same stream.
      expect(c.messages.indexOf(progress[2])).toBeLessThan(c.messages.indexOf(long));

      const uri = "demo://resource/dynamic/text/1";
      expect((await c.request("resources/subscribe", { uri })).result).toEqual({});
      await c.request("tools/call", { name: "toggle-subscriber-updates", arguments: {} });
      // Sent without a related request: only the standalone GET stream can carry it.
      await c.until(() => c.notes("notifications/resources/updated").some((n) => n.params.uri === uri), "notifications/resources/updated");
      expect(c.errors).toEqual([]);
    },
    T,
  );

  test(
    "killed mid-stream and restarted on the same port: E_SESSION_EXPIRED, then a new session works",
    async () => {
      const first = await start();
      const port = Number(new URL(first.url).port);
      client = new StreamableHttpClientTransport(first.url, {
        name: "everything",
        reconnect: { initialDelayMs: 100, maxDelayMs: 500, growFactor: 1.5, maxRetries: 200 },
      });
      const c = collect(client, 60_000);
      await client.start();
      await initialize(client, c);
      await c.until(() => client!.getStreamState === "open", "the GET stream to open");

      await client.send({
        jsonrpc: "2.0",
        id: "lro",
        method: "tools/call",
        params: { name: "trigger-long-running-operation", arguments: { duration: 30, steps: 30 }, _meta: { progressToken: "p" } },
      });
      await c.until(() => c.notes("notifications/progress").length >= 1, "the first progress notification");
      await first.kill(); // both the POST's response stream and the GET stream break here
      running.splice(running.indexOf(first), 1);
      await start(port);

      // The reconnects (resume of the tools/call stream, and the GET stream) meet a server that never heard of us.
      await c.until(
        () => c.errors.some((e) => AgentdError.isInstance(e) && e.code === "E_SESSION_EXPIRED"),
        "E_SESSION_EXPIRED via onerror",
      );
      expect(c.errors.filter((e) => AgentdError.isInstance(e) && e.code === "E_SESSION_EXPIRED")).toHaveLength(1);
      expect(c.errors[0]!.message).toContain("MCP server 'everything' no longer knows this session");
      await c.until(() => c.messages.some((m) => m.id === "lro"), "the interrupted call to end");
      expect(c.messages.find((m) => m.id === "lro").error).toMatchObject({ code: -32000, data: { code: "E_SESSION_EXPIRED" } });
      await expect(client.send({ jsonrpc: "2.0", id: 1, method: "tools/list" })).rejects.toMatchObject({ code: "E_SESSION_EXPIRED" });
      expect(client.sessionId).toBeUndefined();

      // Re-initializing is the client layer's job; the transport lets it start over.
      await initialize(client, c);
      expect(client.sessionId).toBeDefined();
      const echo = await c.request("tools/call", { name: "echo", arguments: { message: "back" } });
      expect(echo.result.content[0].text).toBe("Echo: back");
    },
    T,
  );

  test(
    "a request after a restart, with no stream open, meets the lost session itself",
    async () => {
      const first = await start();
      const port = Number(new URL(first.url).port);
      client = new StreamableHttpClientTransport(first.url, { name: "everything", openGetStream: false });
      const c = collect(client, 60_000);
      await client.start();
      await initialize(client, c);
      await first.kill();
      running.splice(running.indexOf(first), 1);
      await start(port);
      const err = await client.send({ jsonrpc: "2.0", id: 2, method: "tools/list" }).catch((e) => e);
      expect(AgentdError.isInstance(err) && err.code).toBe("E_SESSION_EXPIRED");
      expect(err.message).toContain("HTTP 400");
      expect(c.errors.map((e) => (e as AgentdError).code)).toEqual(["E_SESSION_EXPIRED"]);
    },
    T,
  );
});
