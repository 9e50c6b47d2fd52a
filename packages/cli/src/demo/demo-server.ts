/**
 * The MCP server bundled with `agentd demo`: a tiny order desk with two deterministic tools and one
 * resource. It runs as a real child process (`agentd __demo-server`) speaking MCP over stdio, built on the
 * same server core as agentd's own served agent.
 */
// Narrow imports: this module is all a `__demo-server` process loads, and the whole SDK would cost it start-up time.
import { McpServer } from "@agentd/sdk/mcp";
import { StdioServerTransport } from "@agentd/sdk/transport";

const ORDERS: Record<string, Record<string, unknown>> = {
  "A-1042": { orderId: "A-1042", items: 3, total: 129.9, currency: "USD", status: "shipped", carrier: "DHL", tracking: "JD014600003412" },
  "B-2077": { orderId: "B-2077", items: 1, total: 15.5, currency: "GBP", status: "processing", carrier: "Royal Mail", tracking: "pending" },
};

/** Fixed demo exchange rates (1 unit of the key in EUR). */
const EUR_PER: Record<string, number> = { EUR: 1, USD: 0.92, GBP: 1.17, JPY: 0.0061 };

/** Build the demo server (exported for tests). */
export function createDemoServer(): McpServer {
  const server = new McpServer({ name: "agentd-demo", version: "0.1.0" }, { instructions: "A demo order desk with deterministic data." });
  server.tool(
    {
      name: "lookup_order",
      description: "Look up an order by id: items, total, currency, status, carrier and tracking number.",
      inputSchema: { type: "object", properties: { orderId: { type: "string", description: "e.g. A-1042" } }, required: ["orderId"] },
    },
    (args) => {
      const order = ORDERS[String(args.orderId)];
      if (!order) return { content: [{ type: "text", text: `No order with id ${String(args.orderId)}.` }], isError: true };
      return { content: [{ type: "text", text: JSON.stringify(order) }] };
    },
  );
  server.tool(
    {
      name: "convert_currency",
      description: "Convert an amount between currencies (EUR, USD, GBP, JPY) at fixed demo rates.",
      inputSchema: {
        type: "object",
        properties: { amount: { type: "number" }, from: { type: "string" }, to: { type: "string" } },
        required: ["amount", "from", "to"],
      },
    },
    (args) => {
      const from = EUR_PER[String(args.from).toUpperCase()];
      const to = EUR_PER[String(args.to).toUpperCase()];
      if (from === undefined || to === undefined)
        return { content: [{ type: "text", text: `Unsupported currency; use one of ${Object.keys(EUR_PER).join(", ")}.` }], isError: true };
      const amount = Math.round((Number(args.amount) * from * 100) / to) / 100;
      const rate = `1 ${String(args.from).toUpperCase()} = ${Math.round((from / to) * 10000) / 10000} ${String(args.to).toUpperCase()}`;
      return { content: [{ type: "text", text: JSON.stringify({ amount, currency: String(args.to).toUpperCase(), rate }) }] };
    },
  );
  server.resource({ uri: "demo://orders", name: "orders", mimeType: "application/json", description: "All demo orders" }, (uri) => ({
    contents: [{ uri, mimeType: "application/json", text: JSON.stringify(Object.values(ORDERS)) }],
  }));
  return server;
}

/** Serve the demo server on our stdin/stdout until stdin closes. */
export async function serveDemoServer(): Promise<number> {
  const server = createDemoServer();
  const transport = new StdioServerTransport();
  const session = await server.connect(transport);
  await new Promise<void>((resolve) => (session.closed ? resolve() : session.events.on("close", () => resolve())));
  return 0;
}
