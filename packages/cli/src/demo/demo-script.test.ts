/**
 * The demo's scripted model reads a tool result whether the framework sends the tool's text (agentd,
 * @openai/agents) or the whole CallToolResult as JSON (Mastra).
 */
import { expect, test } from "bun:test";
import type { DynamicTurn, RecordedRequest } from "@agentd/testkit";
import { demoScript } from "./demo-script.ts";

const ORDER = { orderId: "A-1042", status: "shipped", carrier: "DHL", tracking: "T1", items: 3, total: 129.9, currency: "USD" };
const CONVERTED = { amount: 119.51, currency: "EUR", rate: "1 USD = 0.92 EUR" };

function request(lastToolResult?: string): RecordedRequest {
  return {
    dialect: "openai",
    path: "/v1/chat/completions",
    model: "m",
    stream: false,
    headers: {},
    hasAuth: false,
    body: {},
    bodyText: "{}",
    messages: [],
    tools: ["demo__lookup_order", "demo__convert_currency"],
    lastToolResult,
  };
}

const wrapped = (o: object) => JSON.stringify({ content: [{ type: "text", text: JSON.stringify(o) }], isError: false });

for (const [label, wrap] of [
  ["the tool's text", (o: object) => JSON.stringify(o)],
  ["the whole CallToolResult", wrapped],
] as const) {
  test(`the script answers from the tools' numbers when the tool message is ${label}`, async () => {
    const [first, second, third] = demoScript() as DynamicTurn[];
    await first?.(request());
    const convert = (await second?.(request(wrap(ORDER)))) as { toolCalls?: Array<{ arguments: unknown }> } | undefined;
    expect(convert?.toolCalls?.[0]?.arguments).toEqual({ amount: 129.9, from: "USD", to: "EUR" });
    const answer = (await third?.(request(wrap(CONVERTED)))) as { text?: string } | undefined;
    expect(answer?.text).toContain("Order A-1042 is shipped");
    expect(answer?.text).toContain("119.51 EUR");
  });
}
