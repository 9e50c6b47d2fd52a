/**
 * A stdio MCP server built on the official v2 SDK (`@modelcontextprotocol/server` 2.4, served dual-era by
 * its `serveStdio`), for tests of our client against an independent 2026-07-28 implementation: `add`;
 * `confirm`, which asks for an elicitation through an input-required result until it gets one;
 * `note://a`, subscribable; `bump`, which changes the note and tells subscribers.
 */
import { fromJsonSchema, inputRequired, McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const numbers = fromJsonSchema({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
const none = fromJsonSchema({ type: "object", properties: {} });
let note = "v1";
let instance: McpServer | undefined;

function build(): McpServer {
  const server = new McpServer(
    { name: "v2-sdk-server", version: "2.4.0" },
    { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } } },
  );
  server.registerTool("add", { description: "Adds", inputSchema: numbers }, async (args) => {
    const { a, b } = args as { a: number; b: number };
    return { content: [{ type: "text", text: String(a + b) }] };
  });
  server.registerTool("confirm", { description: "Asks the user first", inputSchema: none }, async (_args, ctx) => {
    const answer = ctx.mcpReq.inputResponses?.ok as { action?: string; content?: Record<string, unknown> } | undefined;
    if (answer?.action !== "accept")
      return inputRequired({
        inputRequests: {
          ok: inputRequired.elicit({ message: "Proceed?", requestedSchema: { type: "object", properties: { yes: { type: "boolean" } }, required: ["yes"] } }),
        },
        requestState: "round-1",
      });
    return { content: [{ type: "text", text: `confirmed ${JSON.stringify(answer.content)} after ${String(ctx.mcpReq.requestState())}` }] };
  });
  server.registerResource("note", "note://a", { mimeType: "text/plain" }, async (uri) => ({ contents: [{ uri: uri.href, text: note }] }));
  server.registerTool("bump", { description: "Changes the note", inputSchema: none }, async () => {
    note = `v${Number(note.slice(1)) + 1}`;
    await (instance ?? server).server.sendResourceUpdated({ uri: "note://a" });
    return { content: [{ type: "text", text: note }] };
  });
  instance = server;
  return server;
}

serveStdio(build);
