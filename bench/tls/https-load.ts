/**
 * The HTTPS load generator: CONNECTIONS closed loops posting the echo tools/call with Bun's fetch (keep-
 * alive, trusting the bench CA; with the client certificate when BENCH_CLIENT_CERT/KEY are set), for
 * DURATION_MS. With `session`, each loop first opens its own MCP session (initialize + initialized).
 * Prints `{ rps, errors }`, counting only 200 answers.
 *
 *   bun bench/tls/https-load.ts URL CONNECTIONS DURATION_MS session|none   (BENCH_CA, BENCH_CLIENT_CERT, BENCH_CLIENT_KEY)
 */
import { readFileSync } from "node:fs";
import { POST_HEADERS, PROTOCOL_VERSION, toolsCall } from "../http/mcp-session.ts";

const [url = "", connections = "16", durationMs = "2000", withSession = "none"] = process.argv.slice(2);
const env = process.env;
const tls = {
  ca: readFileSync(env.BENCH_CA ?? "", "utf8"),
  ...(env.BENCH_CLIENT_CERT && env.BENCH_CLIENT_KEY
    ? { cert: readFileSync(env.BENCH_CLIENT_CERT, "utf8"), key: readFileSync(env.BENCH_CLIENT_KEY, "utf8") }
    : {}),
};
const post = (headers: Record<string, string>, body: string) =>
  fetch(url, { method: "POST", headers: { ...POST_HEADERS, ...headers }, body, tls } as RequestInit);

async function openSession(): Promise<Record<string, string>> {
  const init = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  };
  const r = await post({}, JSON.stringify(init));
  await r.text();
  const sid = r.headers.get("mcp-session-id");
  if (r.status !== 200 || !sid) throw new Error(`initialize answered ${r.status}`);
  const headers = { "Mcp-Session-Id": sid, "MCP-Protocol-Version": PROTOCOL_VERSION };
  const n = await post(headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  await n.text();
  return headers;
}

let id = 0;
let ok = 0;
let errors = 0;
const loops = await Promise.all(
  Array.from({ length: Number(connections) }, async () =>
    withSession === "session" ? await openSession() : { "MCP-Protocol-Version": PROTOCOL_VERSION },
  ),
);
const start = performance.now();
const stopAt = start + Number(durationMs);
await Promise.all(
  loops.map(async (headers) => {
    while (performance.now() < stopAt) {
      const r = await post(headers, toolsCall(++id));
      const text = await r.text();
      if (r.status === 200 && text.includes('"result"')) ok++;
      else errors++;
    }
  }),
);
console.log(JSON.stringify({ rps: ok / ((performance.now() - start) / 1000), errors }));
process.exit(0);
