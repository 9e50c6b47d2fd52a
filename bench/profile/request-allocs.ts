/**
 * Profiling aid (not part of `bun bench/run.ts`): the JS objects a server allocates per JSON tools/call
 * request, by type — where the runtime's share of the CPU profile (collecting what each request leaves
 * behind, promise reactions) comes from. Each server runs as a child with the collector held off and
 * `request-allocs-preload.ts` preloaded: after sessions are opened and a warm-up (so the JIT and every lazy
 * table have settled), the census counts the heap's objects by type across an empty window (what the
 * census itself costs; 30,000 requests of warm-up unless `REQUEST_ALLOCS_WARM` says otherwise) and across N requests over C connections (one session each, one request at a time
 * per connection, as the load generator sends them); the difference, divided by N, is printed per type.
 *
 *   bun bench/profile/request-allocs.ts [N] [C] [server…]
 *
 * A server is `floor` (`bench/http/servers/bun-floor.ts`), `reads` (`floor-reads.ts`), `least` (`least-mcp.ts`,
 * the least MCP server), `transport` (agentd's
 * transport with a hand-written echo, `transport-only-server.ts`) or `agentd` (`agentd-http-server.ts`), of
 * this checkout or, as `transport@DIR` and `agentd@DIR`, of the checkout at DIR; each may end in
 * `:sse` for that response mode (default JSON). Defaults: N 4000, C 16, `floor reads agentd`.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isEchoAnswer, openSession, POST_HEADERS, sessionHeaders, toolsCall } from "../http/mcp-session.ts";
import { RawConnection } from "../http/raw-http.ts";
import { BENCH_DIR, BUN, startChild, withRaisedFdLimit } from "../lib/proc.ts";
import { NO_GC } from "../../packages/sdk/src/transport/http-server/__fixtures__/alloc-census.ts";

const [count = "4000", conns = "16", ...named] = process.argv.slice(2);
const n = Number(count);
const c = Number(conns);
const subjects = named.length > 0 ? named : ["floor", "reads", "agentd"];
/** Requests before the census (`REQUEST_ALLOCS_WARM`): enough for the JIT's upper tiers to take the path. */
const warm = Number(process.env.REQUEST_ALLOCS_WARM ?? 30000);
const preload = join(import.meta.dir, "request-allocs-preload.ts");

function scriptOf(subject: string): [string, string] {
  const [name = "", mode = "json"] = subject.split(":");
  const servers = join(BENCH_DIR, "http", "servers");
  if (name === "floor") return [join(servers, "bun-floor.ts"), mode];
  if (name === "reads") return [join(servers, "floor-reads.ts"), mode];
  if (name === "least") return [join(servers, "least-mcp.ts"), mode];
  const [kind, dir] = name.split("@") as [string, string | undefined];
  const bench = dir === undefined ? BENCH_DIR : join(dir, "bench");
  if (kind === "transport") return [join(bench, "profile", "transport-only-server.ts"), mode];
  if (kind === "agentd") return [join(bench, "http", "servers", "agentd-http-server.ts"), mode];
  throw new Error(`unknown server ${subject}: floor, reads, least, transport[@DIR] or agentd[@DIR], with :sse for SSE`);
}

/** Signal the child and wait for the census file it writes. */
async function census(pid: number, out: string, signal: "SIGUSR1" | "SIGUSR2"): Promise<Record<string, number>> {
  rmSync(out, { force: true });
  process.kill(pid, signal);
  // The child renames a complete file into place (request-allocs-preload.ts): once it exists, it is whole.
  for (let i = 0; i < 500 && !existsSync(out); i++) await Bun.sleep(20);
  if (!existsSync(out)) throw new Error(`the server wrote no census to ${out} within 10 s of ${signal}`);
  return JSON.parse(readFileSync(out, "utf8"));
}

/** `each` requests on every connection, one at a time per connection. */
async function load(connections: RawConnection[], sids: string[], each: number): Promise<void> {
  let id = 100;
  await Promise.all(
    connections.map(async (conn, k) => {
      const headers = { ...POST_HEADERS, ...sessionHeaders(sids[k]!) };
      for (let i = 0; i < each; i++) {
        const r = await conn.request("POST", "/mcp", headers, toolsCall(id++));
        if (!isEchoAnswer(r)) throw new Error(`answered ${r.status}: ${r.body.slice(0, 200)}`);
      }
    }),
  );
}

/** Objects allocated per request by `subject`, by type. */
async function measure(subject: string): Promise<Record<string, number>> {
  const [script, mode] = scriptOf(subject);
  const out = join(tmpdir(), `request-allocs-${process.pid}.json`);
  // JSC never collects during a window (see the preload's header): the census tests' environment.
  const env = { ...NO_GC, REQUEST_ALLOCS_OUT: out };
  const child = startChild(withRaisedFdLimit([BUN, "--preload", preload, script, mode, "1024"]), { env });
  try {
    const { port } = await child.next<{ port: number }>(30_000);
    const connections = await Promise.all(Array.from({ length: c }, () => RawConnection.open(port)));
    const sids: string[] = [];
    for (const conn of connections) sids.push(await openSession(conn));
    await load(connections, sids, Math.ceil(warm / c));
    const requests = Math.ceil(n / c) * c;
    let empty: Record<string, number> = {};
    let full: Record<string, number> = {};
    // Every request makes a `Response`: fewer of them counted means a collection ran in the window after
    // all (a timer of the runtime's); that window is measured again.
    for (let attempt = 0; (full.Response ?? 0) < requests; attempt++) {
      if (attempt === 5) throw new Error(`${subject}: a collection ran in every window`);
      await census(child.pid, out, "SIGUSR1");
      empty = await census(child.pid, out, "SIGUSR2");
      await census(child.pid, out, "SIGUSR1");
      await load(connections, sids, Math.ceil(n / c));
      full = await census(child.pid, out, "SIGUSR2");
    }
    for (const conn of connections) conn.close();
    const per: Record<string, number> = {};
    for (const type of new Set([...Object.keys(full), ...Object.keys(empty)]))
      per[type] = ((full[type] ?? 0) - (empty[type] ?? 0)) / requests;
    return per;
  } finally {
    await child.stop();
    rmSync(out, { force: true });
  }
}

const results: Array<[string, Record<string, number>]> = [];
for (const s of subjects) results.push([s, await measure(s)]);
const types = [...new Set(results.flatMap(([, r]) => Object.keys(r)))]
  .filter((t) => results.some(([, r]) => Math.abs(r[t] ?? 0) >= 0.05))
  .sort((a, b) => Math.max(...results.map(([, r]) => r[b] ?? 0)) - Math.max(...results.map(([, r]) => r[a] ?? 0)));
const total = (r: Record<string, number>) => Object.values(r).reduce((s, x) => s + x, 0);
console.log(`objects allocated per request (N ${Math.ceil(n / c) * c}, ${c} connections)`);
console.log("type".padEnd(28), ...results.map(([s]) => s.slice(-14).padStart(14)));
for (const t of types) console.log(t.padEnd(28), ...results.map(([, r]) => (r[t] ?? 0).toFixed(2).padStart(14)));
console.log("total".padEnd(28), ...results.map(([, r]) => total(r).toFixed(2).padStart(14)));
