/**
 * Proof: our `McpClient` over `StdioChildTransport` against the reference server
 * `@modelcontextprotocol/server-everything` (stdio mode, a real child process): handshake, tools,
 * resources, subscriptions with real `notifications/resources/updated`, progress that keeps a call alive
 * past its per-request timeout, and the default rule that a task-required tool is not offered (tasks off).
 */
import { afterEach, expect, test } from "bun:test";
import { memoryLogger } from "../log.ts";
import { StdioChildTransport } from "../transport/stdio-child.ts";
import { McpClient } from "./client/client.ts";

const ENTRY = Bun.resolveSync("@modelcontextprotocol/server-everything/dist/index.js", import.meta.dir);

let client: McpClient | undefined;
let transport: StdioChildTransport | undefined;
afterEach(async () => {
  await client?.close();
  await transport?.close();
  client = transport = undefined;
});

async function connect(): Promise<{ client: McpClient; logger: ReturnType<typeof memoryLogger> }> {
  const logger = memoryLogger();
  transport = new StdioChildTransport({ name: "everything", command: process.execPath, args: [ENTRY], logger });
  client = new McpClient({ name: "agentd-proof", version: "0.1.0" }, { logger });
  await client.connect(transport);
  return { client, logger };
}

test("handshake, tools (echo, get-sum), a static resource; the task-required tool is not offered and is logged", async () => {
  const { client, logger } = await connect();
  expect(client.serverInfo?.name).toBe("mcp-servers/everything");
  expect(client.protocolVersion).toBe("2025-11-25");

  const names = (await client.listTools()).map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "trigger-long-running-operation", "toggle-subscriber-updates"]));
  expect(names).not.toContain("simulate-research-query");
  const warning = logger.records.find((r) => r.event === "mcp.tool_unavailable");
  expect(warning).toMatchObject({ level: "warn", tool: "simulate-research-query" });
  expect(String(warning?.reason)).toContain("taskSupport");
  await expect(client.callTool("simulate-research-query", { topic: "x" })).rejects.toMatchObject({ code: "E_CAPABILITY" });

  expect(await client.callTool("echo", { message: "hi 👋" })).toEqual({ content: [{ type: "text", text: "Echo: hi 👋" }] });
  expect((await client.callTool("get-sum", { a: 2, b: 40 })).content).toEqual([{ type: "text", text: "The sum of 2 and 40 is 42." }]);

  const doc = (await client.listResources()).find((r) => r.uri.startsWith("demo://resource/static/document/"));
  expect(doc).toBeDefined();
  const read = await client.readResource(doc!.uri);
  expect(read.contents[0]).toMatchObject({ uri: doc!.uri, mimeType: doc!.mimeType });
  expect(String((read.contents[0] as { text?: string }).text).length).toBeGreaterThan(0);
}, 60_000);

test("subscribe, toggle-subscriber-updates: at least two notifications/resources/updated arrive", async () => {
  const { client } = await connect();
  const uri = (await client.listResources())[0]!.uri;
  await client.subscribe(uri);
  const two = new Promise<string[]>((resolve) => {
    const seen: string[] = [];
    const off = client.on("resourceUpdated", (u) => {
      if (u.uri !== uri) return;
      seen.push(u.uri);
      if (seen.length === 2) off(), resolve(seen);
    });
  });
  const toggled = await client.callTool("toggle-subscriber-updates");
  expect(String(toggled.content[0]!.text)).toContain("Started simulated resource updated notifications");
  // The server sends one at once, then one every 5 s.
  expect(await two).toEqual([uri, uri]);
}, 60_000);

test("a long operation outlives a short per-request timeout because each progress resets it", async () => {
  const { client } = await connect();
  const steps: number[] = [];
  // 12 steps of 0.4 s: 4.8 s in all, over three times the 1.5 s timeout; each step well inside it.
  const result = await client.callTool(
    "trigger-long-running-operation",
    { duration: 4.8, steps: 12 },
    { timeoutMs: 1_500, onprogress: (p) => steps.push(p.progress) },
  );
  expect(String(result.content[0]!.text)).toContain("Long running operation completed");
  expect(steps).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
}, 60_000);
