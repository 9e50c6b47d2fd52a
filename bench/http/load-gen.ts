/**
 * The fallback load generator, used only when wrk cannot be installed: CONNECTIONS keep-alive connections,
 * each posting the echo tools/call in a closed loop for DURATION_MS, round-robin over the given sessions.
 * Prints `{ rps, errors }`. Its own ceiling is measured against the canned server and reported beside it.
 *
 *   bun bench/http/load-gen.ts PORT CONNECTIONS DURATION_MS [sid1,sid2,...]
 */
import { POST_HEADERS, PROTOCOL_VERSION, toolsCall } from "./mcp-session.ts";
import { RawConnection } from "./raw-http.ts";

const [port = "0", connections = "64", durationMs = "2000", sidList = ""] = process.argv.slice(2);
const sessions = sidList.split(",").filter(Boolean);
let id = 0;
let ok = 0;
let errors = 0;

const conns = await Promise.all(Array.from({ length: Number(connections) }, () => RawConnection.open(Number(port))));
const start = performance.now();
const stopAt = start + Number(durationMs);
await Promise.all(
  conns.map(async (conn) => {
    while (performance.now() < stopAt) {
      const n = ++id;
      const headers: Record<string, string> = { ...POST_HEADERS, "MCP-Protocol-Version": PROTOCOL_VERSION };
      if (sessions.length > 0) headers["Mcp-Session-Id"] = sessions[n % sessions.length] as string;
      const r = await conn.request("POST", "/mcp", headers, toolsCall(n));
      if (r.status === 200) ok++;
      else errors++;
    }
    conn.close();
  }),
);
const seconds = (performance.now() - start) / 1000;
console.log(JSON.stringify({ rps: ok / seconds, errors }));
process.exit(0);
