/**
 * Client driver for the official `@modelcontextprotocol/conformance` client scenarios, built on our SDK
 * (the Streamable HTTP client transport under a `ManagedMcpClient`).
 *
 *   bun client-driver.ts <server-url>        (the scenario name comes in MCP_CONFORMANCE_SCENARIO)
 *
 * The harness appends the server URL it started. Its test servers answer on `localhost`; the driver
 * talks to 127.0.0.1 instead, because the harness is run with a preload that binds it to loopback only.
 * Exit 0 when the scenario's client side ran to the end, 1 with one line on stderr otherwise.
 */
import { jsonLinesLogger } from "../../../log.ts";
import type { CapabilityConfig } from "../../capabilities.ts";
import { elicitationPolicy } from "../elicitation-policies.ts";
import { ManagedMcpClient } from "../managed/managed-client.ts";
import { StreamableHttpClientTransport } from "../../../transport/http-client/streamable-http-client.ts";

type Step = (client: ManagedMcpClient) => Promise<void>;

const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("");

/** What each scenario expects the client to do after the handshake. */
const SCENARIOS: Record<string, Step> = {
  // The handshake is the scenario; list tools as any client would next.
  initialize: async (client) => {
    await client.listTools();
  },
  tools_call: async (client) => {
    const tools = await client.listTools();
    if (!tools.some((t) => t.name === "add_numbers")) throw new Error("add_numbers is not offered");
    const result = await client.callTool("add_numbers", { a: 5, b: 3 });
    if (!/\b8\b/.test(text(result))) throw new Error(`unexpected add_numbers result: ${text(result)}`);
  },
  // The server ends the tools/call stream after a priming event carrying `retry: 500`; the transport must
  // wait that long and resume by GET with Last-Event-ID, where the response arrives.
  "sse-retry": async (client) => {
    await client.listTools();
    const result = await client.callTool("test_reconnection", {}, { timeoutMs: 20_000 });
    if (!text(result).includes("Reconnection test completed")) throw new Error(`unexpected result: ${text(result)}`);
  },
  // The server elicits a form whose every field has a default; the `defaults` policy accepts with them.
  "elicitation-sep1034-client-defaults": async (client) => {
    await client.listTools();
    const result = await client.callTool("test_client_elicitation_defaults", {});
    if (!text(result).includes("Elicitation completed")) throw new Error(`unexpected result: ${text(result)}`);
  },
};

/** The capabilities a scenario needs declared (the headless elicitation policy it exercises). */
const CAPABILITIES: Record<string, CapabilityConfig> = {
  "elicitation-sep1034-client-defaults": { elicitation: elicitationPolicy({ policy: "defaults" }) },
};

async function main(): Promise<number> {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const step = SCENARIOS[scenario];
  const arg = process.argv.at(-1);
  if (!step || !arg || !/^https?:/.test(arg)) {
    process.stderr.write(`usage: MCP_CONFORMANCE_SCENARIO=<${Object.keys(SCENARIOS).join("|")}> bun client-driver.ts <url>\n`);
    return 2;
  }
  const url = new URL(arg);
  if (url.hostname === "localhost") url.hostname = "127.0.0.1";
  const logger = jsonLinesLogger((line) => process.stderr.write(line), "info");
  const client = new ManagedMcpClient({
    name: "conformance",
    transportFactory: () => new StreamableHttpClientTransport(url, { name: "conformance", logger }),
    clientInfo: { name: "agentd-conformance-driver", version: "0.1.0" },
    client: CAPABILITIES[scenario] && { capabilities: CAPABILITIES[scenario] },
    logger,
  });
  try {
    await client.start({ timeoutMs: 20_000 });
    await step(client);
    return 0;
  } catch (e) {
    process.stderr.write(`${scenario}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  } finally {
    await client.close();
  }
}

process.exitCode = await main();
