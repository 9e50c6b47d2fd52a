/**
 * agentd's client and the tasks extension against a hand-built 2026-07-28 server (a bare protocol peer):
 * what it declares per request, an `input_required` task answered by the elicitation policy through
 * `tasks/update` (each key once), and a task handle it did not ask for refused. What the client sends
 * for the extension validates against the extension's schema.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { MemoryTransport } from "../../transport/memory.ts";
import { STATELESS_META } from "../../wire/schemas/methods-2026-07-28.ts";
import { TASKS_EXTENSION } from "../../wire/schemas/tasks-extension.ts";
import { NEEDS_SHARED, sharedMissing } from "@agentd/test-support/oracle";
import { validateTasksExtension } from "@agentd/test-support/tasks-extension-oracle";
import { McpClient } from "./client.ts";
import { Protocol } from "../protocol/protocol.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c().catch(() => {})));
});

const now = () => new Date().toISOString();
const task = (status: string, extra: Record<string, unknown> = {}) => ({
  taskId: "t-1",
  status,
  createdAt: now(),
  lastUpdatedAt: now(),
  ttlMs: null,
  pollIntervalMs: 50,
  ...extra,
});
const ASK = {
  method: "elicitation/create",
  params: { mode: "form", message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
};

/** A stateless server whose one tool is a task that asks for a name, then completes with it. */
async function taskServer() {
  const [a, b] = MemoryTransport.createPair();
  const server = new Protocol(b);
  server.setRevision("2026-07-28");
  const seen: { method: string; params: Record<string, unknown> }[] = [];
  let name: string | undefined;
  const log = (method: string) => (params: Record<string, unknown>) => void seen.push({ method, params });
  server.setRequestHandler("server/discover", () => ({
    resultType: "complete",
    supportedVersions: ["2026-07-28"],
    capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
  }));
  server.setRequestHandler("tools/list", () => ({ resultType: "complete", tools: [{ name: "greet", inputSchema: { type: "object" } }] }));
  server.setRequestHandler("tools/call", (p) => {
    log("tools/call")(p);
    return { resultType: "task", ...task("working") };
  });
  server.setRequestHandler("tasks/get", (p) => {
    log("tasks/get")(p);
    if (name !== undefined)
      return { resultType: "complete", ...task("completed", { result: { content: [{ type: "text", text: `hello ${name}` }] } }) };
    return { resultType: "complete", ...task("input_required", { inputRequests: { name: ASK } }) };
  });
  server.setRequestHandler("tasks/update", (p) => {
    log("tasks/update")(p);
    name = (p.inputResponses as Record<string, { content?: { name?: string } }>).name?.content?.name ?? "?";
    return { resultType: "complete" };
  });
  await server.start();
  closers.push(() => server.close());
  return { transport: a, seen };
}

describe("agentd's client, tasks extension", () => {
  test.skipIf(sharedMissing)(
    `${NEEDS_SHARED} declares the extension per request, answers input_required by policy through tasks/update, returns the result`,
    async () => {
      const { transport, seen } = await taskServer();
      const client = new McpClient(
        { name: "c", version: "0" },
        {
          versionNegotiation: "auto",
          capabilities: { tasks: true, elicitation: { handler: async () => ({ action: "accept", content: { name: "Ada" } }) } },
        },
      );
      closers.push(() => client.close());
      await client.connect(transport);
      expect(await client.callTool("greet", {})).toMatchObject({ content: [{ type: "text", text: "hello Ada" }] });
      const call = seen.find((s) => s.method === "tools/call")!;
      expect((call.params._meta as Record<string, unknown>)[STATELESS_META.clientCapabilities]).toMatchObject({
        extensions: { [TASKS_EXTENSION]: {} },
        elicitation: { form: {} },
      });
      const updates = seen.filter((s) => s.method === "tasks/update");
      expect(updates.map((u) => u.params.inputResponses)).toEqual([{ name: { action: "accept", content: { name: "Ada" } } }]);
      for (const s of seen.filter((x) => x.method.startsWith("tasks/"))) {
        const v = validateTasksExtension({ jsonrpc: "2.0", id: 1, method: s.method, params: s.params });
        expect(v.errors).toBe("");
      }
    },
  );

  test("tasks off: the extension is not declared and a task handle is refused as an invalid answer", async () => {
    const { transport, seen } = await taskServer();
    const client = new McpClient({ name: "c", version: "0" }, { versionNegotiation: "auto" });
    closers.push(() => client.close());
    await client.connect(transport);
    await expect(client.callTool("greet", {})).rejects.toMatchObject({ code: "E_UPSTREAM" });
    const caps = (seen[0]!.params._meta as Record<string, unknown>)[STATELESS_META.clientCapabilities] as Record<string, unknown>;
    expect(caps.extensions).toBeUndefined();
    expect(seen.some((s) => s.method === "tasks/get")).toBe(false);
  });
});
