/**
 * `agentd store`: serve the store — versioned JSON documents with compare-and-set and subscriptions — as
 * an MCP server on stdin/stdout, on a directory or Redis. Any agent can mount it as an MCP server;
 * agentd itself uses it for run claims (docs/durability.md).
 */
import { AgentdError } from "@agentd/sdk";
import { serveStoreStdio, type StoreLocation } from "@agentd/sdk/store";
import { defineCommand } from "citty";
import { EXIT } from "../exit-codes.ts";
import { stderrLogger } from "../telemetry.ts";
import { VERSION } from "./version.ts";

/** Examples shown by `agentd store --help`. */
export const storeExamples = [
  "agentd store --dir /var/lib/agentd/store            # an MCP store server on stdio, on a persistent volume",
  "agentd store --redis redis://127.0.0.1:6379         # shared by replicas through one Redis",
  "agentd store --redis redis://redis:6379 --redis-prefix team-a:",
];

/** Where the flags (or AGENT_STORE_DIR / AGENT_STORE_REDIS) say the documents live. */
export function storeLocationFrom(args: { dir?: string; redis?: string; "redis-prefix"?: string }, env: Record<string, string | undefined> = process.env): StoreLocation {
  const dir = args.dir ?? (args.redis ? undefined : env.AGENT_STORE_DIR);
  const redis = args.redis ?? (args.dir ? undefined : env.AGENT_STORE_REDIS);
  if (dir && redis) throw new AgentdError("E_USAGE", "--dir and --redis exclude each other: pick one backend");
  if (dir) return { dir };
  if (redis) return { redis, ...(args["redis-prefix"] ? { prefix: args["redis-prefix"] } : {}) };
  throw new AgentdError("E_USAGE", "agentd store needs a backend: --dir PATH or --redis redis://HOST:PORT");
}

/** `agentd store`. */
export const storeCommand = defineCommand({
  meta: { name: "store", description: "Serve a document store (get, put, compare-and-set, delete, list, subscriptions) as an MCP server on stdio." },
  args: {
    dir: { type: "string", description: "Keep documents in this directory, one file each, written atomically (AGENT_STORE_DIR)" },
    redis: { type: "string", description: "Keep documents in Redis at this URL, redis://[user:pass@]host:port[/db] (AGENT_STORE_REDIS)" },
    "redis-prefix": { type: "string", description: "Prefix of the Redis keys this store uses (default agentd:store:)" },
  },
  async run({ args }) {
    await serveStoreStdio({ location: storeLocationFrom(args), logger: stderrLogger(), version: VERSION });
    return EXIT.ok;
  },
});
