/**
 * Profiling aid (not part of `bun bench/run.ts`): two checkouts' MCP HTTP handlers in ONE process, each driven
 * with real `Request` objects and no sockets (64 sessions in JSON response mode, one echo tools/call per
 * session a wave, as the benchmark's 64 connections send them), in blocks of waves that alternate between the
 * two (AB, then BA, …). The server's own CPU per request, not the kernel's or the load generator's: a change
 * of a few hundred nanoseconds on the request path shows here where `rps-cpu.ts`, whose children's CPU
 * includes the sockets and moves ±2 µs on this VM, cannot resolve it. Prints each side's median µs per
 * request over the blocks, how many blocks B was lower, and the median of the per-block differences.
 *
 *   bun bench/profile/handler-ab.ts A_DIR B_DIR [BLOCKS=30] [WAVES=150]     (WARM=1500 waves each first)
 *
 * Run it in both orders and against a second checkout of the same commit (A/A): the side loaded second has
 * read 0.1–0.3 µs higher or lower than the first in some runs (bench/NOTES.md, seventh session).
 */
import type * as Mcp from "@agentd/sdk/mcp";
import type * as Config from "../../packages/sdk/src/transport/http-server/server-config.ts";
import type * as Handler from "../../packages/sdk/src/transport/http-server/handler.ts";
import { ECHO_TOOL, echo } from "../lib/echo-tool.ts";
import { resolve } from "node:path";
import { readBodyPrefix } from "../../packages/sdk/src/_internal/bounded-body.ts";

const [argA = ".", argB = ".", blocksArg = "30", wavesArg = "150"] = process.argv.slice(2);
// Imported by absolute path: a relative one would be read from this file's folder, not the shell's.
const dirA = resolve(argA);
const dirB = resolve(argB);
const blocks = Number(blocksArg);
const wavesPerBlock = Number(wavesArg);
const PORT = 3999;
const url = new URL(`http://127.0.0.1:${PORT}/mcp`);
const conn = { remote: () => ({ address: "127.0.0.1", port: 5 }), holdOpen() {} };
const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream", host: `127.0.0.1:${PORT}` };
const REVISION = "2025-11-25";
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: "ab", version: "1.0.0" } },
});
const call = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`;

/** One side: its handler, 64 initialized sessions, a function that sends one wave, and the handler's close. */
async function side(dir: string): Promise<{ wave: () => Promise<void>; close: () => void }> {
  const { McpServer } = (await import(`${dir}/packages/sdk/src/mcp/index.ts`)) as typeof Mcp;
  const { loadServerConfig } = (await import(`${dir}/packages/sdk/src/transport/http-server/server-config.ts`)) as typeof Config;
  const { createMcpHttpHandler } = (await import(`${dir}/packages/sdk/src/transport/http-server/handler.ts`)) as typeof Handler;
  const mcp = new McpServer({ name: "bench-echo", version: "1.0.0" });
  mcp.tool(ECHO_TOOL, echo);
  const config = await loadServerConfig({ responseMode: "json", port: PORT, onsession: (t) => void mcp.connect(t) });
  const handler = createMcpHttpHandler(config, url, PORT);
  const post = (body: string, headers: Record<string, string>) =>
    Promise.resolve(handler.handle(new Request(url, { method: "POST", headers, body }), conn, url.pathname));
  const sessions: Record<string, string>[] = [];
  for (let i = 0; i < 64; i++) {
    const r = await post(INITIALIZE, BASE);
    const sid = r.headers.get("mcp-session-id");
    await readBodyPrefix(r);
    if (!sid) throw new Error(`${dir}: initialize answered ${r.status}`);
    const headers = { ...BASE, "mcp-session-id": sid, "mcp-protocol-version": REVISION };
    const r2 = await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), headers);
    if (r2.status !== 202) throw new Error(`${dir}: notifications/initialized answered ${r2.status}`);
    sessions.push(headers);
  }
  const check = await post(call(1), sessions[0] as Record<string, string>);
  const text = await readBodyPrefix(check);
  if (!text.includes('"text":"hello"')) throw new Error(`${dir}: the echo answered ${check.status} ${text}`);
  let id = 2;
  const wave = async () => {
    const answers = await Promise.all(sessions.map((headers) => post(call(id++), headers)));
    for (const r of answers) if (r.status !== 200) throw new Error(`${dir}: answered ${r.status}`);
  };
  return { wave, close: () => handler.close() };
}

const sideA = await side(dirA);
const sideB = await side(dirB);
const a = sideA.wave;
const b = sideB.wave;
for (let i = 0; i < Number(process.env.WARM ?? 1500); i++) {
  await a();
  await b();
}
async function block(wave: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < wavesPerBlock; i++) await wave();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / (wavesPerBlock * 64);
}
const ra: number[] = [];
const rb: number[] = [];
for (let k = 0; k < blocks; k++) {
  if (k % 2 === 0) {
    ra.push(await block(a));
    rb.push(await block(b));
  } else {
    rb.push(await block(b));
    ra.push(await block(a));
  }
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
const lower = ra.filter((x, i) => (rb[i] as number) < x).length;
const diff = median(ra.map((x, i) => (rb[i] as number) - x));
console.log(`A ${dirA} ${median(ra).toFixed(3)} µs/request`);
console.log(`B ${dirB} ${median(rb).toFixed(3)} µs/request; lower in ${lower} of ${blocks} blocks; median B − A ${diff.toFixed(3)}`);
// Nothing left to keep the process: it ends once the lines above reach whatever reads them.
sideA.close();
sideB.close();
