/**
 * The HTTP subjects: how to start each server as its own child process (fd limit raised), and their names
 * in the report. Every server answers the same `echo` tool on `/mcp` at 127.0.0.1.
 */
import { join } from "node:path";
import { buildForNode } from "../lib/node-build.ts";
import { BENCH_DIR, BUN, startChild, withRaisedFdLimit, type Child } from "../lib/proc.ts";

export type ServerId =
  | "ours"
  | "ours-node"
  | "sdk"
  | "sdk-node"
  | "floor"
  | "floor-sse"
  | "floor-reads"
  | "floor-reads-sse"
  | "least-mcp"
  | "least-mcp-sse";

/** Report names of the subjects. */
export const SUBJECTS: Record<ServerId, string> = {
  ours: "agentd createStreamableHttpServer (Bun)",
  "ours-node": "agentd createStreamableHttpServer, Node adapter under node:http (Node 20)",
  sdk: "official SDK 1.32.2 web-standard transport under Bun.serve",
  "sdk-node": "official SDK 1.32.2 Node transport under node:http (Node 20)",
  floor: "floor: bare Bun.serve JSON echo",
  "floor-sse": "floor: bare Bun.serve SSE echo (priming event, response event, end of stream)",
  "floor-reads": "floor with the required reads (path, 7 headers, strict UTF-8 body, session id header, end-of-turn answer), JSON",
  "floor-reads-sse": "floor with the required reads (path, 7 headers, strict UTF-8 body, session id header, end-of-turn answer), SSE",
  "least-mcp":
    "least MCP server: the floor with the reads, the envelope, session and tools/call checks, agentd's protections (requests in flight, body deadline, nesting bound), JSON",
  "least-mcp-sse": "least MCP server, SSE: as the JSON one, and the answer's events kept for resumption",
};

/** A floor that is sent no session ids (it reads none). */
export const isBareFloor = (id: ServerId) => id === "floor" || id === "floor-sse";

let nodeServer: Promise<string> | undefined;
let oursNode: Promise<string> | undefined;

/** Start server `id` in `mode`; resolves once it listens. */
export async function startServer(id: ServerId, mode: "json" | "sse", maxSessions: number): Promise<{ child: Child; port: number }> {
  const file = (name: string) => join(BENCH_DIR, "http", "servers", name);
  let argv: string[];
  if (id === "ours") argv = [BUN, file("agentd-http-server.ts"), mode, String(maxSessions)];
  else if (id === "sdk") argv = [BUN, file("sdk-bun-server.ts"), mode];
  else if (id === "floor") argv = [BUN, file("bun-floor.ts")];
  else if (id === "floor-sse") argv = [BUN, file("bun-floor.ts"), "sse"];
  else if (id === "floor-reads" || id === "floor-reads-sse") argv = [BUN, file("floor-reads.ts"), id === "floor-reads" ? "json" : "sse"];
  else if (id === "least-mcp" || id === "least-mcp-sse") argv = [BUN, file("least-mcp.ts"), id === "least-mcp" ? "json" : "sse"];
  else if (id === "ours-node") {
    // The same server file, bundled for Node: the SDK picks its node:http adapter there.
    oursNode ??= buildForNode("bench/http/servers/agentd-http-server.ts", "agentd-http-server-node", []);
    argv = ["node", "--expose-gc", await oursNode, mode, String(maxSessions)];
  } else {
    nodeServer ??= buildForNode("bench/http/servers/sdk-node-server.ts", "sdk-node-server", ["@modelcontextprotocol/*", "zod"]);
    argv = ["node", "--expose-gc", await nodeServer, mode];
  }
  const child = startChild(withRaisedFdLimit(argv));
  try {
    const { port } = await child.next<{ port: number }>(30_000);
    return { child, port };
  } catch (e) {
    await child.stop();
    throw e;
  }
}

/** Start the canned-response server (the load generator's ceiling). */
export async function startCanned(): Promise<{ child: Child; port: number }> {
  const child = startChild(withRaisedFdLimit([BUN, join(BENCH_DIR, "http", "servers", "canned-server.ts")]));
  const { port } = await child.next<{ port: number }>(30_000);
  return { child, port };
}

/**
 * The server child's settled resident set size (kB): a full GC, then RSS read from /proc; repeated every
 * 250 ms while it still falls by more than 0.5 MB (at most 12 times, 3 s). A runtime hands freed pages back
 * to the system a little after a collection, and when varies run to run. The settled figure is what a
 * long-running server holds, and it is measured the same way for every subject.
 */
export async function settledRssKb(child: Child): Promise<number> {
  let last = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 12; i++) {
    child.send("gc");
    await child.next(30_000);
    const rss = child.rssKb();
    if (last - rss < 512) return Math.min(rss, last);
    last = rss;
    await new Promise((r) => setTimeout(r, 250));
  }
  return last;
}
