/**
 * A stdio MCP server built on the official v2 SDK (`@modelcontextprotocol/server` 2.4, served dual-era by
 * its `serveStdio`), for tests of our client against an independent 2026-07-28 implementation: `add`;
 * `confirm`, which asks for an elicitation through an input-required result until it gets one;
 * `note://a`, subscribable; `bump`, which changes the note and tells subscribers; `crash`, which exits.
 * With `NOTE_FILE` set the note lives in that file (surviving restarts) and a change to the file is an
 * update too.
 */
import { fromJsonSchema, inputRequired, McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { readFileSync, watch, writeFileSync } from "node:fs";

const numbers = fromJsonSchema({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
const none = fromJsonSchema({ type: "object", properties: {} });
const file = process.env.NOTE_FILE;
let memory = "v1";
const readNote = () => (file ? readFileSync(file, "utf8") : memory);
const writeNote = (text: string) => (file ? writeFileSync(file, text) : (memory = text));
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
          ok: inputRequired.elicit({
            message: "Proceed?",
            requestedSchema: { type: "object", properties: { yes: { type: "boolean" } }, required: ["yes"] },
          }),
        },
        requestState: "round-1",
      });
    return { content: [{ type: "text", text: `confirmed ${JSON.stringify(answer.content)} after ${String(ctx.mcpReq.requestState())}` }] };
  });
  server.registerResource("note", "note://a", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: readNote() }],
  }));
  server.registerTool("bump", { description: "Changes the note", inputSchema: none }, async () => {
    writeNote(`v${Number(readNote().slice(1)) + 1}`);
    if (!file) await (instance ?? server).server.sendResourceUpdated({ uri: "note://a" });
    return { content: [{ type: "text", text: readNote() }] };
  });
  server.registerTool("crash", { description: "Exits the process", inputSchema: none }, async () => process.exit(3));
  instance = server;
  return server;
}

serveStdio(build);
if (file) watch(file, () => void instance?.server.sendResourceUpdated({ uri: "note://a" }).catch(() => {}));
