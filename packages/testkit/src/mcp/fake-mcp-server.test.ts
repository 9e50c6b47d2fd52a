/**
 * The fake MCP server in memory, driven by the SDK's own `McpClient`: every scripted behaviour, the
 * records, and resources changed under a subscribed client.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { AgentdError, McpError } from "@agentd/sdk/wire";
import { RUN_ID_META_KEY, type McpClient } from "@agentd/sdk/mcp";
import { createFakeMcpServer, type FakeMcpServer } from "./fake-mcp-server.ts";
import type { FakeMcpServerSpec } from "./types.ts";

let fake: FakeMcpServer | undefined;
const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await fake?.close();
  fake = undefined;
});

async function connect(spec: FakeMcpServerSpec, options: Parameters<FakeMcpServer["connectInMemory"]>[0] = {}): Promise<McpClient> {
  fake ??= createFakeMcpServer(spec);
  const client = await fake.connectInMemory(options);
  clients.push(client);
  return client;
}

/** Resolve with the first event `pick` accepts. */
function next<T>(subscribe: (listener: (v: T) => void) => () => void, pick: (v: T) => boolean = () => true): Promise<T> {
  return new Promise((resolve) => {
    const off = subscribe((v) => {
      if (!pick(v)) return;
      off();
      resolve(v);
    });
  });
}

describe("tools", () => {
  test("static text with {{arg}} substitution, exact results, errors, and the echo default; the run id is recorded", async () => {
    const client = await connect(
      {
        tools: [
          { name: "greet", text: "hello {{who}}, you are {{age}}" },
          { name: "exact", result: { content: [{ type: "text", text: "x" }], structuredContent: { n: 1 } } },
          { name: "broken", text: "it broke", isError: true },
          { name: "echo" },
        ],
      },
      { runId: "run-42" },
    );
    expect((await client.listTools()).map((t) => t.name)).toEqual(["greet", "exact", "broken", "echo"]);
    expect(await client.callTool("greet", { who: "Ada", age: 36 })).toEqual({ content: [{ type: "text", text: "hello Ada, you are 36" }] });
    expect((await client.callTool("exact")).structuredContent).toEqual({ n: 1 });
    expect(await client.callTool("broken")).toEqual({ content: [{ type: "text", text: "it broke" }], isError: true });
    expect((await client.callTool("echo", { a: [1] })).content).toEqual([{ type: "text", text: '{"a":[1]}' }]);

    const calls = fake!.toolCalls("greet");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.params.arguments).toEqual({ who: "Ada", age: 36 });
    expect(calls[0]!.meta[RUN_ID_META_KEY]).toBe("run-42");
    expect(fake!.requests.map((r) => r.method)).toEqual([
      "initialize",
      "tools/list",
      "tools/call",
      "tools/call",
      "tools/call",
      "tools/call",
    ]);
    expect(fake!.notifications.map((n) => n.method)).toEqual(["notifications/initialized"]);
  });

  test("progress steps go out with the caller's progress token, in order, before the result", async () => {
    const client = await connect({
      tools: [
        {
          name: "slow",
          text: "done",
          progress: [
            { progress: 1, total: 3, message: "one" },
            { progress: 2, total: 3, delayMs: 5 },
            { progress: 3, total: 3 },
          ],
        },
      ],
    });
    const seen: unknown[] = [];
    const result = await client.callTool("slow", {}, { onprogress: (p) => seen.push(p) });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual([
      { progress: 1, total: 3, message: "one" },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
    expect(fake!.toolCalls("slow")[0]!.meta.progressToken).toBeDefined();
  });

  test("hang never answers; the caller's abort is recorded as an interrupted cancellation", async () => {
    const client = await connect({ tools: [{ name: "stuck", hang: true }] });
    const abort = new AbortController();
    const call = client.callTool("stuck", {}, { signal: abort.signal });
    await fake!.waitForRequest((r) => r.method === "tools/call");
    abort.abort();
    await expect(call).rejects.toMatchObject({ code: "E_ABORTED" });
    const cancellation = await fake!.waitForCancellation((c) => c.interrupted);
    expect(cancellation).toMatchObject({
      tool: "stuck",
      method: "tools/call",
      interrupted: true,
      requestId: fake!.toolCalls("stuck")[0]!.id,
    });
    // The session carries on.
    await client.ping();
  });

  test("a delay longer than the caller's timeout: the timeout cancels it, with the reason", async () => {
    const client = await connect({ tools: [{ name: "late", text: "too late", delayMs: 60_000 }] });
    await expect(client.callTool("late", {}, { timeoutMs: 100 })).rejects.toBeInstanceOf(Error);
    const cancellation = await fake!.waitForCancellation((c) => c.interrupted);
    expect(cancellation.reason).toBe("request timed out");
  });

  test("crash closes the transport in memory: the pending call fails and the client sees the close", async () => {
    const client = await connect({ tools: [{ name: "boom", crash: true, progress: [{ progress: 1 }] }] });
    const closed = next<void>((l) => client.on("close", l));
    const error = await client.callTool("boom").catch((e: unknown) => e);
    expect(AgentdError.isInstance(error) && error.code).toBe("E_CONNECTION_CLOSED");
    await closed;
    expect(client.connected).toBe(false);
  });

  test("clientRequest: asks the client and answers with its reply (v1 client: roots [] and -32601)", async () => {
    const client = await connect({
      tools: [
        { name: "roots", clientRequest: { method: "roots/list" } },
        { name: "sample", clientRequest: { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } } },
      ],
    });
    expect(JSON.parse((await client.callTool("roots")).content[0]!.text as string)).toEqual({ result: { roots: [] } });
    const refused = await client.callTool("sample");
    expect(refused.isError).toBe(true);
    expect(JSON.parse(refused.content[0]!.text as string).error.code).toBe(-32601);
  });

  test("a code handler, logs at the client's level, and tools added or removed at run time", async () => {
    const client = await connect({
      tools: [
        {
          name: "calc",
          logs: [
            { level: "debug", data: "hidden" },
            { level: "warning", data: { x: 1 }, logger: "calc" },
          ],
          handler: (args) => ({ content: [{ type: "text", text: String(Number(args.a) * 2) }] }),
        },
      ],
    });
    await client.setLoggingLevel("info");
    const log = next<{ level: string; logger?: string; data: unknown }>((l) => client.on("log", l));
    expect((await client.callTool("calc", { a: 21 })).content).toEqual([{ type: "text", text: "42" }]);
    expect(await log).toEqual({ level: "warning", logger: "calc", data: { x: 1 } });

    const changed = next<void>((l) => client.on("toolsListChanged", l));
    fake!.addTool({ name: "late", text: "new" });
    await changed;
    expect((await client.listTools()).map((t) => t.name)).toEqual(["calc", "late"]);
    fake!.removeTool("late");
    await next<void>((l) => client.on("toolsListChanged", l));
    await expect(client.callTool("late")).rejects.toBeInstanceOf(McpError);
  });
});

describe("resources, templates, prompts", () => {
  test("setResource notifies subscribers only, and reads return the new content", async () => {
    const spec = { resources: [{ uri: "file:///inbox.md", name: "inbox", mimeType: "text/markdown", text: "empty" }] };
    const watcher = await connect(spec);
    const bystander = await connect(spec);
    await watcher.subscribe("file:///inbox.md");
    let bystanderNotified = false;
    bystander.on("resourceUpdated", () => (bystanderNotified = true));
    const updated = next<{ uri: string }>((l) => watcher.on("resourceUpdated", l));
    expect(await fake!.setResource("file:///inbox.md", "one new mail")).toBe(1);
    expect(await updated).toEqual({ uri: "file:///inbox.md" });
    expect((await watcher.readResource("file:///inbox.md")).contents).toEqual([
      { uri: "file:///inbox.md", mimeType: "text/markdown", text: "one new mail" },
    ]);
    await bystander.ping();
    expect(bystanderNotified).toBe(false);

    const listChanged = next<void>((l) => watcher.on("resourcesListChanged", l));
    await fake!.setResource("file:///photo.png", { blob: "AAEC", mimeType: "image/png" });
    await listChanged;
    expect((await watcher.readResource("file:///photo.png")).contents).toEqual([
      { uri: "file:///photo.png", mimeType: "image/png", blob: "AAEC" },
    ]);
    expect(fake!.requestsOf("resources/subscribe")[0]!.params.uri).toBe("file:///inbox.md");
  });

  test("templates fill {{var}}; prompts fill {{arg}}; completions filter by prefix", async () => {
    const client = await connect(
      {
        resourceTemplates: [{ uriTemplate: "db://users/{id}", name: "user", text: "user #{{id}}", complete: { id: ["10", "11", "20"] } }],
        prompts: [
          {
            name: "review",
            arguments: [{ name: "lang", required: true }],
            messages: [{ role: "user", text: "Review this {{lang}} code" }],
            complete: { lang: ["Go", "go-mod", "Rust"] },
          },
          { name: "plain" },
        ],
      },
      { capabilities: { prompts: true, completion: true } },
    );
    expect((await client.readResource("db://users/11")).contents).toEqual([{ uri: "db://users/11", text: "user #11" }]);
    expect(
      (await client.complete({ ref: { type: "ref/resource", uri: "db://users/{id}" }, argument: { name: "id", value: "1" } })).completion
        .values,
    ).toEqual(["10", "11"]);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(["review", "plain"]);
    expect((await client.getPrompt("review", { lang: "Rust" })).messages).toEqual([
      { role: "user", content: { type: "text", text: "Review this Rust code" } },
    ]);
    expect((await client.getPrompt("plain")).messages[0]!.content).toEqual({ type: "text", text: "prompt plain" });
    expect(
      (await client.complete({ ref: { type: "ref/prompt", name: "review" }, argument: { name: "lang", value: "GO" } })).completion.values,
    ).toEqual(["Go", "go-mod"]);
    await expect(client.getPrompt("review")).rejects.toMatchObject({ code: -32602 });
  });
});

describe("spec mistakes", () => {
  test("are one line naming the field", () => {
    expect(() => createFakeMcpServer({ tools: [{ name: "a", delayMs: -1 }] })).toThrow(
      "fake MCP server spec: tools[0].delayMs must be a non-negative number",
    );
    expect(() => createFakeMcpServer({ tools: [{ name: "a" }, { name: "a" }] })).toThrow('tools[1] repeats "a"');
    expect(() => createFakeMcpServer({ resources: [{ text: "x" } as never] })).toThrow("resources[0].uri is required (a string)");
    expect(() => createFakeMcpServer({ tools: [{ name: "a", logs: [{ level: "loud" as never, data: 1 }] }] })).toThrow(
      "tools[0].logs[0].level must be one of debug",
    );
  });
});
