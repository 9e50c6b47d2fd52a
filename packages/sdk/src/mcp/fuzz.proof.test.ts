/**
 * Proof: 10,000 random and mutated frames written raw into our server (a child on `StdioServerTransport`)
 * and 10,000 into our client (`McpClient` on `StdioChildTransport`, fed through a byte relay child). No
 * crash; every frame gets exactly the JSON-RPC answer it deserves (see `fuzz-frames.ts`); a valid request
 * after the storm still succeeds. Seeded, so a failure replays.
 */
import { afterEach, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { memoryLogger } from "../log.ts";
import { MAX_JSON_DEPTH } from "../wire/json-depth.ts";
import { StdioChildTransport } from "../transport/stdio-child.ts";
import { McpClient } from "./client/client.ts";
import { ReplyLines, runStorm } from "./__fixtures__/fuzz-driver.ts";
import { buildFrames, type Call, type PeerSurface } from "./__fixtures__/fuzz-frames.ts";

const SEED = 0x5eed_ad7d;
const FRAMES = 10_000;
const MAX_FRAME_BYTES = 256 * 1024;
const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));

const r = (method: string, params?: unknown): Call => ({ method, params, outcome: "result" });
const e = (code: number, method: string, params?: unknown): Call => ({ method, params, outcome: code });
const nest = (depth: number): unknown => (depth === 0 ? "leaf" : [nest(depth - 1)]);
const initializeParams = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fuzz", version: "0" } };
const samplingParams = { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 5 };
const elicitParams = { message: "m", requestedSchema: { type: "object", properties: {} } };

const SERVER: PeerSurface = {
  valid: [
    r("ping"),
    r("ping", {}),
    r("tools/list"),
    r("tools/call", { name: "echo", arguments: { text: "hi" } }),
    // Arguments failing the tool's inputSchema are a tool-domain error: still a result.
    // Arguments nested as deep as the server's JSON depth limit allows (the envelope adds four levels).
    r("tools/call", { name: "echo", arguments: { text: 5 } }),
    r("tools/call", { name: "echo", arguments: { text: "x", deep: nest(MAX_JSON_DEPTH - 5) } }),
    r("resources/list"),
    r("resources/templates/list"),
    r("resources/read", { uri: "mem://a" }),
    r("resources/read", { uri: "mem://t/7" }),
    e(-32002, "resources/read", { uri: "mem://nope" }),
    r("resources/subscribe", { uri: "mem://a" }),
    r("resources/unsubscribe", { uri: "mem://a" }),
    r("prompts/list"),
    r("prompts/get", { name: "p" }),
    r("completion/complete", { ref: { type: "ref/prompt", name: "p" }, argument: { name: "x", value: "a" } }),
    r("logging/setLevel", { level: "debug" }),
  ],
  badParams: [
    e(-32602, "tools/call", { name: 5 }),
    e(-32602, "tools/call", {}),
    e(-32602, "tools/call", { name: "echo", arguments: [] }),
    e(-32602, "tools/call", { name: "nope" }),
    e(-32602, "tools/list", { cursor: 5 }),
    e(-32602, "tools/list", { cursor: "garbage!" }),
    e(-32602, "resources/read", {}),
    e(-32602, "resources/read", { uri: 3 }),
    e(-32602, "prompts/get", {}),
    e(-32602, "prompts/get", { name: "nope" }),
    e(-32602, "logging/setLevel", { level: "loud" }),
    e(-32602, "completion/complete", { ref: { type: "x" }, argument: { name: "a", value: "b" } }),
    e(-32602, "completion/complete", { ref: { type: "ref/prompt", name: "nope" }, argument: { name: "a", value: "b" } }),
    e(-32602, "resources/subscribe", { uri: null }),
    e(-32602, "ping", { _meta: 5 }),
    e(-32602, "ping", { _meta: { progressToken: {} } }),
    // ProgressToken is a string or an integer.
    e(-32602, "ping", { _meta: { progressToken: 0.5 } }),
  ],
  refused: [
    e(-32600, "initialize", initializeParams),
    e(-32601, "sampling/createMessage", samplingParams),
    e(-32601, "roots/list"),
    e(-32601, "elicitation/create", elicitParams),
    e(-32601, "tasks/get", { taskId: "t" }),
    e(-32601, "tasks/list"),
  ],
  notifications: [
    { method: "notifications/initialized" },
    { method: "notifications/cancelled", params: { requestId: "never-issued", reason: "x" } },
    { method: "notifications/cancelled", params: { requestId: {} } },
    { method: "notifications/progress", params: { progressToken: "nope", progress: 1 } },
    { method: "notifications/roots/list_changed" },
    { method: "notifications/x-unknown", params: { a: [1] } },
  ],
  maxFrameBytes: MAX_FRAME_BYTES,
  // The served stdio transport refuses deeper JSON before parsing it.
  maxDepth: MAX_JSON_DEPTH,
};

const CLIENT: PeerSurface = {
  valid: [r("ping"), r("ping", {}), r("ping", { _meta: { progressToken: "t" } }), r("roots/list"), r("roots/list", {})],
  badParams: [
    e(-32602, "ping", { _meta: 5 }),
    e(-32602, "ping", { _meta: { progressToken: {} } }),
    e(-32602, "roots/list", { _meta: "x" }),
    e(-32602, "roots/list", { _meta: { progressToken: [1] } }),
  ],
  refused: [
    e(-32601, "sampling/createMessage", samplingParams),
    e(-32601, "elicitation/create", elicitParams),
    e(-32601, "tools/call", { name: "x" }),
    e(-32601, "tools/list"),
    e(-32601, "initialize", initializeParams),
    e(-32601, "resources/read", { uri: "a" }),
    e(-32601, "tasks/get", { taskId: "t" }),
    e(-32601, "notifications/message", { level: "info", data: 1 }),
  ],
  notifications: [
    { method: "notifications/message", params: { level: "info", data: "x" } },
    { method: "notifications/message", params: { level: "loud" } },
    { method: "notifications/resources/updated", params: { uri: "x" } },
    { method: "notifications/resources/list_changed" },
    { method: "notifications/tools/list_changed" },
    { method: "notifications/prompts/list_changed" },
    { method: "notifications/progress", params: { progressToken: "zz", progress: 1 } },
    { method: "notifications/cancelled", params: { requestId: "never" } },
    { method: "notifications/x-unknown" },
    { method: "notifications/initialized" },
  ],
  maxFrameBytes: MAX_FRAME_BYTES,
};

const line = (m: unknown) => new TextEncoder().encode(`${JSON.stringify(m)}\n`);

let child: ChildProcess | undefined;
let client: McpClient | undefined;
let tcp: Server | undefined;
let socket: Socket | undefined;
afterEach(async () => {
  await client?.close();
  socket?.destroy();
  await new Promise<void>((resolve) => (tcp ? tcp.close(() => resolve()) : resolve()));
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    process.kill(child.pid!, "SIGKILL");
    await exited;
  }
  child = client = tcp = socket = undefined;
});

test("server: 10,000 fuzz frames on stdio, each answered as it deserves; a tools/call afterwards works", async () => {
  const started = performance.now();
  child = spawn(process.execPath, [fixture("fuzz-server.ts"), String(MAX_FRAME_BYTES)], { stdio: ["pipe", "pipe", "pipe"] });
  const lines = new ReplyLines();
  child.stdout!.on("data", (c: Uint8Array) => lines.push(c));
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr = (stderr + c.toString()).slice(-8_000)));
  const stdin = child.stdin!;
  const write = (bytes: Uint8Array) => new Promise<void>((resolve) => (stdin.write(bytes) ? resolve() : stdin.once("drain", resolve)));

  await write(line({ jsonrpc: "2.0", id: "init", method: "initialize", params: initializeParams }));
  expect((await lines.waitFor((m) => m.id === "init", "initialize result")).result.protocolVersion).toBe("2025-11-25");
  await write(line({ jsonrpc: "2.0", method: "notifications/initialized" }));

  const verdict = await runStorm(buildFrames(SERVER, FRAMES, SEED), write, lines);
  expect(verdict.problems, `seed ${SEED}, stderr: ${stderr}`).toEqual([]);
  expect(verdict.frames).toBe(FRAMES);
  expect(Object.keys(verdict.byKind).length).toBeGreaterThanOrEqual(20);

  await write(line({ jsonrpc: "2.0", id: "after", method: "tools/call", params: { name: "echo", arguments: { text: "still alive" } } }));
  expect((await lines.waitFor((m) => m.id === "after", "the call after the storm")).result.content).toEqual([
    { type: "text", text: "still alive" },
  ]);
  expect(child.exitCode).toBeNull();
  expect(performance.now() - started).toBeLessThan(45_000);
}, 50_000);

test("client: 10,000 fuzz frames from a raw server, each answered as it deserves; both directions work afterwards", async () => {
  const started = performance.now();
  tcp = createServer();
  const connection = new Promise<Socket>((resolve) => tcp!.once("connection", resolve));
  await new Promise<void>((resolve) => tcp!.listen(0, "127.0.0.1", resolve));
  const port = (tcp.address() as { port: number }).port;
  const logger = memoryLogger("warn");
  // The storm pipelines thousands of requests in one write: lift the in-flight limit (-32003 is not under test).
  client = new McpClient({ name: "fuzzed-client", version: "0" }, { logger, maxInflightRequests: 1_000_000 });
  const transport = new StdioChildTransport({
    name: "relay",
    command: process.execPath,
    args: [fixture("byte-relay.ts"), String(port)],
    maxFrameBytes: MAX_FRAME_BYTES,
    logger,
  });
  const connecting = client.connect(transport);
  socket = await connection;
  const lines = new ReplyLines();
  socket.on("data", (c: Uint8Array) => lines.push(c));
  const s = socket;
  const write = (bytes: Uint8Array) => new Promise<void>((resolve) => (s.write(bytes) ? resolve() : s.once("drain", resolve)));

  const init = await lines.waitFor((m) => m.method === "initialize", "the client's initialize");
  await write(
    line({
      jsonrpc: "2.0",
      id: init.id,
      result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "raw", version: "0" } },
    }),
  );
  await connecting;
  await lines.waitFor((m) => m.method === "notifications/initialized", "notifications/initialized");

  const verdict = await runStorm(buildFrames(CLIENT, FRAMES, SEED + 1), write, lines);
  expect(verdict.problems, `seed ${SEED + 1}`).toEqual([]);
  expect(verdict.frames).toBe(FRAMES);

  await write(line({ jsonrpc: "2.0", id: "after", method: "roots/list" }));
  expect((await lines.waitFor((m) => m.id === "after", "roots/list after the storm")).result).toEqual({ roots: [] });
  const ping = client.ping();
  const request = await lines.waitFor((m) => m.method === "ping" && m.id !== undefined, "the client's ping");
  await write(line({ jsonrpc: "2.0", id: request.id, result: {} }));
  await ping;
  expect(client.connected).toBe(true);
  expect(logger.records.filter((rec) => rec.level === "error")).toEqual([]);
  expect(performance.now() - started).toBeLessThan(45_000);
}, 50_000);
