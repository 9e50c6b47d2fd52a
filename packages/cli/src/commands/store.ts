/**
 * `agentd store`: serve the store — versioned JSON documents with compare-and-set and subscriptions — as
 * an MCP server on stdin/stdout or on Streamable HTTP(S), on a directory or Redis. Any agent can mount it
 * as an MCP server; agentd itself uses it for run claims (docs/durability.md).
 */
import { AgentdError } from "@agentd/sdk";
import { httpServeOptionsFromConfig } from "@agentd/sdk/agent";
import { serveStoreHttp, serveStoreStdio, type StoreHttpOptions, type StoreLocation } from "@agentd/sdk/store";
import { defineCommand } from "citty";
import { EXIT } from "../exit-codes.ts";
import { stderrLogger } from "../telemetry.ts";
import { listenOrExplain } from "./serve.ts";
import { VERSION } from "./version.ts";

/** Examples shown by `agentd store --help`. */
export const storeExamples = [
  "agentd store --dir /var/lib/agentd/store            # an MCP store server on stdio, on a persistent volume",
  "agentd store --redis redis://127.0.0.1:6379         # shared by replicas through one Redis",
  "agentd store --redis redis://redis:6379 --redis-prefix team-a:",
  "agentd store --dir /data --http 127.0.0.1:7700      # Streamable HTTP on loopback: http://127.0.0.1:7700/mcp",
  "agentd store --dir /data --http 0.0.0.0:7700 --tls-cert c.pem --tls-key k.pem --auth-tokens store-tokens.txt",
];

/** Where the flags (or AGENT_STORE_DIR / AGENT_STORE_REDIS) say the documents live. */
export function storeLocationFrom(
  args: { dir?: string; redis?: string; "redis-prefix"?: string },
  env: Record<string, string | undefined> = process.env,
): StoreLocation {
  const dir = args.dir ?? (args.redis ? undefined : env.AGENT_STORE_DIR);
  const redis = args.redis ?? (args.dir ? undefined : env.AGENT_STORE_REDIS);
  if (dir && redis) throw new AgentdError("E_USAGE", "--dir and --redis exclude each other: pick one backend");
  if (dir) return { dir };
  if (redis) return { redis, prefix: args["redis-prefix"] || undefined };
  throw new AgentdError("E_USAGE", "agentd store needs a backend: --dir PATH or --redis redis://HOST:PORT");
}

/** The HTTP flags of `agentd store`. */
interface StoreHttpArgs {
  http?: string;
  "tls-cert"?: string;
  "tls-key"?: string;
  "tls-ca"?: string;
  "auth-tokens"?: string;
  "allowed-origin"?: string;
  "allowed-host"?: string;
}

/**
 * The HTTP serving options the flags ask for, checked as `agentd serve --http` checks them (a non-loopback
 * address needs TLS and auth). Tokens come from --auth-tokens or AGENT_STORE_AUTH_TOKENS (comma-separated).
 */
export async function storeHttpOptionsFrom(
  args: StoreHttpArgs,
  env: Record<string, string | undefined> = process.env,
): Promise<StoreHttpOptions | undefined> {
  const list = (v: string | undefined) =>
    v
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  const httpOnly = ["tls-cert", "tls-key", "tls-ca", "auth-tokens", "allowed-origin", "allowed-host"] as const;
  const stray = httpOnly.find((f) => args[f] !== undefined);
  if (!args.http) {
    if (stray) throw new AgentdError("E_USAGE", `--${stray} applies to the HTTP listener: add --http HOST:PORT`);
    return undefined;
  }
  const options = await httpServeOptionsFromConfig(
    {},
    {
      listen: args.http,
      authTokensFile: args["auth-tokens"],
      authTokensEnv: env.AGENT_STORE_AUTH_TOKENS ? "AGENT_STORE_AUTH_TOKENS" : undefined,
      tlsCert: args["tls-cert"],
      tlsKey: args["tls-key"],
      tlsCa: args["tls-ca"],
      allowedOrigins: list(args["allowed-origin"]) || undefined,
      allowedHosts: list(args["allowed-host"]) || undefined,
    },
  ).catch((e: unknown) => {
    // serve's line names serve's config keys too; the store's flags are these.
    if (AgentdError.isInstance(e) && e.message.startsWith("refusing to serve on "))
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `${e.message.slice(0, e.message.indexOf(" without TLS and auth"))} without TLS and auth: add --tls-cert and --tls-key, and --auth-tokens FILE or --tls-ca (mTLS); or bind 127.0.0.1`,
      );
    throw e;
  });
  return options;
}

/** `agentd store`. */
export const storeCommand = defineCommand({
  meta: {
    name: "store",
    description:
      "Serve a document store (get, put, compare-and-set, delete, list, subscriptions) as an MCP server on stdio or Streamable HTTP.",
  },
  args: {
    dir: {
      type: "string",
      description:
        "Keep documents in this directory, one file each, written atomically; this store is its only writer: a second store on it exits 2 (AGENT_STORE_DIR)",
    },
    redis: {
      type: "string",
      description:
        "Keep documents in Redis at this URL, redis://[user:pass@]host:port[/db]; a Redis that does not answer within 5 s at start: exit 4 (AGENT_STORE_REDIS)",
    },
    "redis-prefix": { type: "string", description: "Prefix of the Redis keys this store uses (default agentd:store:)" },
    http: {
      type: "string",
      description: "Serve Streamable HTTP on HOST:PORT instead of stdio (loopback unless TLS and auth are set; port 0: any free one)",
    },
    "tls-cert": { type: "string", description: "TLS certificate (PEM file)" },
    "tls-key": { type: "string", description: "TLS private key (PEM file)" },
    "tls-ca": { type: "string", description: "CA (PEM file) that client certificates must chain to: enables mTLS" },
    "auth-tokens": { type: "string", description: "File of bearer tokens, one a line (or AGENT_STORE_AUTH_TOKENS, comma-separated)" },
    "allowed-origin": {
      type: "string",
      description: "Origins allowed instead of the loopback ones (comma-separated scheme://host[:port])",
    },
    "allowed-host": {
      type: "string",
      description: "Host header values allowed instead of the bound address and loopback names (comma-separated)",
    },
  },
  async run({ args }) {
    const location = storeLocationFrom(args);
    const http = await storeHttpOptionsFrom(args);
    const logger = stderrLogger();
    if (!http) {
      await serveStoreStdio({ location, logger, version: VERSION });
      return EXIT.ok;
    }
    const stop = new Promise<NodeJS.Signals>((resolve) => {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
    });
    const served = await listenOrExplain(args.http as string, () => serveStoreHttp({ location, http, logger, version: VERSION }));
    const authMethod =
      http.auth?.bearerTokens?.length && http.auth.mtls
        ? "bearer+mtls"
        : http.auth?.bearerTokens?.length
          ? "bearer"
          : http.auth?.mtls
            ? "mtls"
            : "none";
    logger.info("store.listening", {
      url: served.url.href,
      tls: Boolean(http.tls),
      authMethod,
      backend: "dir" in location ? "directory" : "redis",
    });
    const signal = await stop;
    // Every acknowledged write is already durable: closing only ends the sessions and the backend.
    await served.close();
    logger.info("store.stopped", { signal });
    return EXIT.ok;
  },
});
