/**
 * Test fixture: an MCP server on stdio that appends every inbound message to the JSONL file named by
 * argv[2], so an end-to-end test can see what agentd sent (run id in _meta, notifications/cancelled).
 * Tools: `echo {text}`, `slow {ms}` (waits, honouring cancellation), `fail` (isError).
 */
import { appendFileSync } from "node:fs";
import { McpServer } from "@agentd/sdk/mcp";
import { StdioServerTransport } from "@agentd/sdk/transport";

const log = process.argv[2];
if (!log) throw new Error("usage: recording-server.ts <log.jsonl>");

const server = new McpServer({ name: "recording", version: "1.0.0" });
server.tool(
  {
    name: "echo",
    description: "Echo text back",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  (args) => ({ content: [{ type: "text", text: `echo: ${String(args.text)}` }] }),
);
server.tool(
  { name: "slow", description: "Wait ms milliseconds", inputSchema: { type: "object", properties: { ms: { type: "number" } } } },
  (args, ctx) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ content: [{ type: "text", text: "done" }] }), Number(args.ms ?? 60_000));
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        appendFileSync(log, `${JSON.stringify({ event: "handler-aborted" })}\n`);
        resolve({ content: [{ type: "text", text: "aborted" }], isError: true });
      });
    }),
);
server.tool({ name: "fail", description: "Always fails", inputSchema: { type: "object" } }, () => ({
  content: [{ type: "text", text: "the fail tool failed, as it always does" }],
  isError: true,
}));

const transport = new StdioServerTransport();
const session = await server.connect(transport);
const inner = transport.onmessage;
transport.onmessage = (message, extra) => {
  appendFileSync(log, `${JSON.stringify(message)}\n`);
  inner?.(message, extra);
};
await new Promise<void>((resolve) => (session.closed ? resolve() : session.events.on("close", () => resolve())));
process.exit(0);
