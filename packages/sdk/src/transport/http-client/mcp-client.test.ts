/**
 * The MCP client layer (`McpClient`) over the Streamable HTTP client transport, against server-everything
 * (a child process on 127.0.0.1) and the official SDK server behind a proxy that cuts streams.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { McpClient } from "../../mcp/index.ts";
import { startCutProxy, type CutProxy } from "./__fixtures__/cut-proxy.ts";
import { freePort, startEverything, type Everything } from "./__fixtures__/everything.ts";
import { startSdkServer, type SdkServer } from "./__fixtures__/sdk-server.ts";
import { StreamableHttpClientTransport } from "./streamable-http-client.ts";

const T = 90_000;
let everything: Everything | undefined;
let server: SdkServer | undefined;
let proxy: CutProxy | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  await proxy?.stop();
  await server?.stop();
  await everything?.kill();
  client = proxy = server = everything = undefined;
});

/** Resolve when `pred()` holds (checked every 25 ms); fail after `ms`. */
async function until(pred: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!pred()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

describe("McpClient over StreamableHttpClientTransport", () => {
  test(
    "server-everything: tools, progress, and a subscription's updates over the GET stream",
    async () => {
      everything = await startEverything(freePort());
      const transport = new StreamableHttpClientTransport(everything.url, { name: "everything" });
      client = new McpClient({ name: "agentd-test", version: "0.0.0" });
      const updated: string[] = [];
      client.on("resourceUpdated", ({ uri }) => void updated.push(uri));
      await client.connect(transport);
      expect(client.serverInfo?.name).toBe("mcp-servers/everything");
      expect(client.protocolVersion).toBe("2025-11-25");
      expect(transport.sessionId).toBeDefined();

      const names = (await client.listTools()).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["echo", "trigger-long-running-operation"]));
      const echo = await client.callTool("echo", { message: "over http" });
      expect(echo.content).toEqual([{ type: "text", text: "Echo: over http" }]);

      const progress: number[] = [];
      const long = await client.callTool(
        "trigger-long-running-operation",
        { duration: 0.3, steps: 3 },
        { onprogress: (p) => void progress.push(p.progress) },
      );
      expect(long.isError ?? false).toBe(false);
      expect(progress).toEqual([1, 2, 3]);

      const uri = "demo://resource/dynamic/text/2";
      await client.subscribe(uri);
      await client.callTool("toggle-subscriber-updates", {});
      await until(() => updated.includes(uri), "notifications/resources/updated");
    },
    T,
  );

  test(
    "official SDK server behind a cutting proxy: a tools/call survives a broken response stream",
    async () => {
      server = await startSdkServer();
      proxy = await startCutProxy(server.url);
      const transport = new StreamableHttpClientTransport(proxy.url, {
        reconnect: { initialDelayMs: 50, maxDelayMs: 400, growFactor: 2, maxRetries: 20 },
      });
      client = new McpClient({ name: "agentd-test", version: "0.0.0" });
      await client.connect(transport);
      const progress: number[] = [];
      const call = client.callTool("steps", { first: 2, then: 3 }, { onprogress: (p) => void progress.push(p.progress) });
      await until(() => progress.length === 2, "the first progress notifications");
      expect(proxy.cut("POST")).toBe(1);
      server.release();
      const result = await call;
      expect(result.content).toEqual([{ type: "text", text: "done after 5" }]);
      expect(progress).toEqual([1, 2, 3, 4, 5]);
      expect(proxy.log.some((r) => r.method === "GET" && r.lastEventId !== null)).toBe(true);
    },
    T,
  );
});
