/**
 * What we emit validates against the official 2025-11-25 JSON Schema: a session exercising every feature
 * on both sides is recorded, and each message sent (requests, notifications, results, errors) is checked
 * against the schema definition for its method. Needs the official schemas in `../shared` (see
 * `test/shared-specs.ts`).
 */
import { describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { readFileSync } from "node:fs";
import { NEEDS_SHARED, officialSchemaPath, sharedMissing } from "@agentd/test-support/shared-specs";
import { MemoryTransport } from "../transport/memory.ts";
import { McpClient } from "./client/client.ts";
import { McpServer } from "./server/server.ts";
import { record, type Recording } from "./__fixtures__/test-peer.ts";
import { onCleanup, useCleanup } from "./__fixtures__/test-harness.ts";

useCleanup();

const RESULT_DEF: Record<string, string> = {
  initialize: "InitializeResult",
  ping: "EmptyResult",
  "tools/list": "ListToolsResult",
  "tools/call": "CallToolResult",
  "resources/list": "ListResourcesResult",
  "resources/templates/list": "ListResourceTemplatesResult",
  "resources/read": "ReadResourceResult",
  "resources/subscribe": "EmptyResult",
  "resources/unsubscribe": "EmptyResult",
  "prompts/list": "ListPromptsResult",
  "prompts/get": "GetPromptResult",
  "completion/complete": "CompleteResult",
  "logging/setLevel": "EmptyResult",
  "roots/list": "ListRootsResult",
  "sampling/createMessage": "CreateMessageResult",
  "elicitation/create": "ElicitResult",
};

function validator() {
  const schema = JSON.parse(readFileSync(officialSchemaPath("2025-11-25"), "utf8")) as Record<string, unknown>;
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema(schema, "mcp");
  const defs = (schema as { $defs: Record<string, { properties?: { method?: { const?: string } } }> }).$defs;
  const byMethod = new Map<string, string>();
  for (const [name, def] of Object.entries(defs)) {
    const m = def.properties?.method?.const;
    if (m && (name.endsWith("Request") || name.endsWith("Notification"))) byMethod.set(m, name);
  }
  const check = (def: string, value: unknown): string | undefined => {
    const fn = ajv.getSchema(`mcp#/$defs/${def}`);
    if (!fn) return `no definition ${def}`;
    return fn(value) ? undefined : `${def}: ${ajv.errorsText(fn.errors)}`;
  };
  return { check, byMethod };
}

// Wire values are checked by the schema, not by TypeScript.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Msg = any;

/** Check every message `mine` sent; results are matched to the request the other side (`theirs`) sent. */
function problems(mine: Recording, theirs: Recording, v: ReturnType<typeof validator>): string[] {
  const methodOf = new Map<unknown, string>(
    theirs.sent.filter((s) => s.message.method && "id" in s.message).map((s) => [s.message.id, s.message.method]),
  );
  const out: string[] = [];
  for (const { message: m } of mine.sent as { message: Msg }[]) {
    let problem: string | undefined;
    if (typeof m.method === "string") {
      const def = v.byMethod.get(m.method);
      problem = def ? v.check(def, m) : `unknown method ${m.method}`;
    } else if ("error" in m) problem = v.check("JSONRPCErrorResponse", m);
    else {
      const method = methodOf.get(m.id);
      problem = method ? v.check(RESULT_DEF[method] ?? "Result", m.result) : `result for unknown id ${m.id}`;
      if (!problem) problem = v.check("JSONRPCResultResponse", m);
    }
    if (problem) out.push(`${JSON.stringify(m).slice(0, 200)} → ${problem}`);
  }
  return out;
}

describe("emitted messages", () => {
  test.skipIf(sharedMissing)(`${NEEDS_SHARED} every message of a full session validates against the 2025-11-25 schema`, async () => {
    const on = { prompts: true, completion: true, serverNotifications: true } as const;
    const server = new McpServer({ name: "srv", version: "1" }, { capabilities: on, instructions: "hi", pageSize: 1 });
    onCleanup(() => server.close());
    server.tool(
      {
        name: "weather",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        outputSchema: { type: "object", properties: { t: { type: "number" } }, required: ["t"] },
      },
      async (args, ctx) => {
        await ctx.sendProgress(1, 2, "looking");
        await ctx.log("info", { city: args.city }, "weather");
        const sampled = await ctx.session.createMessage(
          { messages: [{ role: "user", content: { type: "text", text: "?" } }], maxTokens: 5 },
          { relatedRequestId: ctx.requestId },
        );
        const elicited = await ctx.session.elicit({
          message: "unit?",
          requestedSchema: { type: "object", properties: { unit: { type: "string", enum: ["C", "F"] } } },
        });
        const roots = await ctx.session.listRoots();
        return {
          content: [{ type: "text", text: `${JSON.stringify(sampled.content)} ${elicited.action} ${roots.length}` }],
          structuredContent: { t: 21 },
        };
      },
    );
    server.tool({ name: "other" }, () => ({ content: [{ type: "image", data: "aGk=", mimeType: "image/png" }] }));
    server.resource({ uri: "mem://a", name: "a", mimeType: "text/plain" }, (uri) => ({ contents: [{ uri, text: "A" }] }));
    server.resource({ uri: "mem://b", name: "b" }, (uri) => ({ contents: [{ uri, blob: "aGk=" }] }));
    server.resourceTemplate({ uriTemplate: "mem://t/{x}", name: "t" }, (uri) => ({ contents: [{ uri, text: "T" }] }), {
      complete: { x: () => ["1", "2"] },
    });
    server.prompt({ name: "p", arguments: [{ name: "q", required: true }] }, (a) => ({
      description: "d",
      messages: [{ role: "user", content: { type: "text", text: a.q ?? "" } }],
    }));

    const [a, b] = MemoryTransport.createPair();
    const clientRec = record(a);
    const serverRec = record(b);
    const session = await server.connect(b);
    const client = new McpClient(
      { name: "c", version: "1" },
      {
        capabilities: {
          ...on,
          roots: [{ uri: "file:///data", name: "data" }],
          sampling: async () => ({ role: "assistant", content: { type: "text", text: "ok" }, model: "m", stopReason: "endTurn" }),
          elicitation: async () => ({ action: "accept", content: { unit: "C" } }),
        },
        runId: "run-1",
      },
    );
    onCleanup(() => client.close());
    await client.connect(a);

    await client.ping();
    await session.ping();
    await client.setLoggingLevel("debug");
    expect((await client.listTools()).length).toBe(2);
    await client.callTool("weather", { city: "Oslo" }, { onprogress: () => {} });
    await client.callTool("weather", { city: 3 });
    await client.callTool("missing").catch(() => {});
    await client.listResources();
    await client.listResourceTemplates();
    await client.readResource("mem://b");
    await client.readResource("mem://t/1");
    await client.readResource("mem://none").catch(() => {});
    await client.subscribe("mem://a");
    await server.notifyResourceUpdated("mem://a");
    await client.unsubscribe("mem://a");
    await client.listPrompts();
    await client.getPrompt("p", { q: "hello" });
    await client.complete({ ref: { type: "ref/resource", uri: "mem://t/{x}" }, argument: { name: "x", value: "" } });
    await client.setRoots([{ uri: "file:///other" }]);
    const ac = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const hanging = server.tool({ name: "hang" }, (_x, ctx) => {
      started();
      return new Promise((r) => ctx.signal.addEventListener("abort", () => r({ content: [] })));
    });
    await new Promise<void>((r) => client.on("toolsListChanged", () => r()));
    await client.listTools();
    const call = client.callTool("hang", {}, { signal: ac.signal }).catch(() => {});
    await running;
    ac.abort();
    await call;
    hanging.remove();
    await client.ping();

    const v = validator();
    expect(problems(clientRec, serverRec, v)).toEqual([]);
    expect(problems(serverRec, clientRec, v)).toEqual([]);
    const methods = new Set([...clientRec.sent, ...serverRec.sent].map((s) => s.message.method).filter(Boolean));
    for (const m of [
      "notifications/cancelled",
      "notifications/progress",
      "notifications/message",
      "notifications/resources/updated",
      "notifications/tools/list_changed",
      "notifications/roots/list_changed",
      "sampling/createMessage",
      "elicitation/create",
      "roots/list",
    ])
      expect(methods.has(m)).toBe(true);
  });
});
