/**
 * The HTTP subjects: how to start each server as its own child process (fd limit raised), and their names
 * in the report. Every server answers the same `echo` tool on `/mcp` at 127.0.0.1.
 */
import { join } from "node:path";
import { buildForNode } from "../lib/node-build.ts";
import { BENCH_DIR, BUN, startChild, withRaisedFdLimit, type Child } from "../lib/proc.ts";

export type ServerId = "ours" | "sdk" | "sdk-node" | "floor";

/** Report names of the subjects. */
export const SUBJECTS: Record<ServerId, string> = {
  ours: "agentd createStreamableHttpServer (Bun)",
  sdk: "official SDK 1.32.2 web-standard transport under Bun.serve",
  "sdk-node": "official SDK 1.32.2 Node transport under node:http (Node 20)",
  floor: "floor: bare Bun.serve JSON echo",
};

let nodeServer: Promise<string> | undefined;

/** Start server `id` in `mode`; resolves once it listens. */
export async function startServer(id: ServerId, mode: "json" | "sse", maxSessions: number): Promise<{ child: Child; port: number }> {
  const file = (name: string) => join(BENCH_DIR, "http", "servers", name);
  let argv: string[];
  if (id === "ours") argv = [BUN, file("agentd-http-server.ts"), mode, String(maxSessions)];
  else if (id === "sdk") argv = [BUN, file("sdk-bun-server.ts"), mode];
  else if (id === "floor") argv = [BUN, file("bun-floor.ts")];
  else {
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

/** Run a full GC in the server child and read its resident set size (kB). */
export async function settledRssKb(child: Child): Promise<number> {
  child.send("gc");
  await child.next(30_000);
  return child.rssKb();
}
