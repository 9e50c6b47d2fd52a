/**
 * The scripted model of `agentd demo`: a fixed, honest script played by the testkit's fake gateway. It
 * looks up an order, converts its total with a second tool using the first tool's real result, and answers
 * with text built from both results. Every number in the answer comes from the demo MCP server.
 */
import type { RecordedRequest, Turn } from "@agentd/testkit";

/** The instruction the demo runs when none is given. */
export const DEMO_INSTRUCTION = "What is the status of order A-1042, and what is its total in EUR?";

/** The order the scripted model asks about. */
export const DEMO_ORDER_ID = "A-1042";

/** The offered tool whose name ends with `suffix` (names are provider-safe forms of `demo/<tool>`). */
function toolNamed(request: RecordedRequest, suffix: string): string {
  const name = request.tools.find((t) => t === suffix || t.endsWith(`__${suffix}`) || t.endsWith(`_${suffix}`));
  if (!name) throw new Error(`the demo model expected a tool named like '${suffix}', got: ${request.tools.join(", ")}`);
  return name;
}

/**
 * The first JSON object inside a (fenced) tool result. Some frameworks (Mastra) send the whole
 * CallToolResult as the tool message: then the object is the JSON inside its first text content.
 */
function jsonIn(text: string | undefined): Record<string, unknown> {
  const start = text?.indexOf("{") ?? -1;
  const end = text?.lastIndexOf("}") ?? -1;
  if (!text || start < 0 || end < start) throw new Error(`the demo model expected JSON in the tool result, got: ${text}`);
  const parsed = JSON.parse(text.slice(start, end + 1)) as Record<string, unknown>;
  const inner = Array.isArray(parsed.content)
    ? (parsed.content as Array<{ type?: unknown; text?: unknown }>).find((c) => c.type === "text")
    : undefined;
  return typeof inner?.text === "string" ? jsonIn(inner.text) : parsed;
}

/** The three turns of the scripted run. */
export function demoScript(): Turn[] {
  let order: Record<string, unknown> = {};
  return [
    (request) => ({
      text: "Let me look that order up.",
      toolCalls: [{ name: toolNamed(request, "lookup_order"), arguments: { orderId: DEMO_ORDER_ID } }],
    }),
    (request) => {
      order = jsonIn(request.lastToolResult);
      return {
        toolCalls: [
          {
            name: toolNamed(request, "convert_currency"),
            arguments: { amount: order.total as number, from: order.currency as string, to: "EUR" },
          },
        ],
      };
    },
    (request) => {
      const converted = jsonIn(request.lastToolResult);
      return {
        text:
          `Order ${order.orderId} is ${order.status} (${order.carrier}, tracking ${order.tracking}). ` +
          `It has ${order.items} items totalling ${order.total} ${order.currency}, ` +
          `which is ${converted.amount} ${converted.currency} at ${converted.rate}.`,
      };
    },
  ];
}
