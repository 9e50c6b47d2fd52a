/**
 * Test fixture: an MCP server on stdio, built on the official SDK, with one long tool. `work {seconds,
 * everyMs}` runs `seconds` and reports progress every `everyMs` — but only when the request carries a
 * `progressToken` (as the spec has it: progress goes to a token the requester gave). A client that does not
 * ask for progress therefore hears nothing until the answer.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "progress", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: "work",
      description: "Work for `seconds`, reporting progress every `everyMs` when asked",
      inputSchema: { type: "object", properties: { seconds: { type: "number" }, everyMs: { type: "number" } }, required: ["seconds"] },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const seconds = Number(request.params.arguments?.seconds ?? 1);
  const everyMs = Number(request.params.arguments?.everyMs ?? 300);
  const token = request.params._meta?.progressToken;
  const total = Math.ceil((seconds * 1000) / everyMs);
  for (let step = 1; step <= total; step++) {
    await new Promise((r) => setTimeout(r, everyMs));
    if (extra.signal.aborted) return { content: [{ type: "text", text: "cancelled" }], isError: true };
    if (token !== undefined)
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: step, total, message: `step ${step} of ${total}` },
      });
  }
  return {
    content: [{ type: "text", text: `work done after ${seconds}s (progress ${token === undefined ? "not asked for" : "reported"})` }],
  };
});

await server.connect(new StdioServerTransport());
