/**
 * Measures what the `server/discover` probe (`versionNegotiation: "auto"`) costs a connection to a
 * handshake-only (2025-11-25) server, against going straight to `initialize` ("initialize"): the official
 * server-everything over stdio and an official 1.32.2 SDK server over Streamable HTTP. Run by hand:
 * `bun packages/sdk/src/mcp/__fixtures__/probe-cost.ts [rounds]`; prints medians in ms.
 */
import { McpClient } from "../client/client.ts";
import type { VersionNegotiation } from "../client/revision-probe.ts";
import { StdioChildTransport } from "../../transport/stdio-child.ts";
import { StreamableHttpClientTransport } from "../../transport/http-client/streamable-http-client.ts";
import { startSdkServer } from "../../transport/http-client/__fixtures__/sdk-server.ts";

const ENTRY = Bun.resolveSync("@modelcontextprotocol/server-everything/dist/index.js", import.meta.dir);
const rounds = Number(process.argv[2] ?? 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function once(
  mode: VersionNegotiation,
  transport: () => StdioChildTransport | StreamableHttpClientTransport,
): Promise<{ connect: number; version: string }> {
  const client = new McpClient({ name: "probe-cost", version: "0" }, { versionNegotiation: mode });
  const t = transport();
  const start = performance.now();
  await client.connect(t);
  const connect = performance.now() - start;
  const version = client.protocolVersion!;
  await client.close();
  return { connect, version };
}

async function measure(label: string, transport: () => StdioChildTransport | StreamableHttpClientTransport): Promise<void> {
  const out: Record<string, number[]> = { initialize: [], auto: [] };
  let versions = "";
  for (let i = 0; i < rounds; i++)
    for (const mode of ["initialize", "auto"] as const) {
      const r = await once(mode, transport);
      out[mode]!.push(r.connect);
      versions = `${versions}${mode}=${r.version} `;
    }
  // The probe costs one refused request: about one round trip, measured as a ping on a warm connection.
  const warm = new McpClient({ name: "probe-cost", version: "0" }, { versionNegotiation: "initialize" });
  await warm.connect(transport());
  const rt: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    await warm.ping();
    rt.push(performance.now() - t0);
  }
  await warm.close();
  console.log(
    `${label}: one round trip (ping) on a warm connection, what the refused probe adds: ${median(rt).toFixed(3)} ms (median of 50)`,
  );
  const initialize = median(out.initialize!);
  const auto = median(out.auto!);
  console.log(
    `${label}: initialize ${initialize.toFixed(2)} ms, auto ${auto.toFixed(2)} ms, probe +${(auto - initialize).toFixed(2)} ms (median of ${rounds}); ${[...new Set(versions.trim().split(" "))].join(" ")}`,
  );
}

await measure(
  "server-everything (stdio)",
  () => new StdioChildTransport({ name: "everything", command: process.execPath, args: [ENTRY, "stdio"] }),
);
const http = await startSdkServer();
await measure("1.32.2 SDK server (Streamable HTTP)", () => new StreamableHttpClientTransport(new URL(http.url)));
await http.stop();
process.exit(0);
