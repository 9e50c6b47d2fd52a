/**
 * Serve the store over Streamable HTTP(S) (`agentd store --http`): one store server, one backend, every
 * HTTP session connected to the same server — so a write through one session notifies the subscribers of
 * all. The HTTP server is the one `agentd serve` uses, with the same hardening: loopback by default, a
 * non-loopback address refused without TLS and authentication, Origin and Host checks, bearer tokens or
 * mutual TLS, limits. Every authenticated caller reads and writes the same documents: a store is one
 * namespace (keep tenants apart with separate stores or Redis prefixes).
 */
import type { Logger } from "../log.ts";
import { createStreamableHttpServer } from "../transport/http-server/server.ts";
import type { StreamableHttpServerOptions } from "../transport/http-server/options.ts";
import { openStoreBackend, type StoreLocation } from "./open-backend.ts";
import { createStoreServer } from "./store-server.ts";

/** The HTTP server's options without the parts the store provides. */
export type StoreHttpOptions = Omit<StreamableHttpServerOptions, "onsession" | "routes" | "logger" | "mounts">;

/** Options of {@link serveStoreHttp}. */
export interface ServeStoreHttpOptions {
  location: StoreLocation;
  http: StoreHttpOptions;
  logger?: Logger;
  version?: string;
}

/** A store served over HTTP. */
export interface ServedStore {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: URL;
  /** Stop listening, end every session, close the backend. */
  close(): Promise<void>;
}

/** Serve the store on Streamable HTTP (POSTs answered with JSON bodies by default); `/healthz` answers `ok` without authentication. */
export async function serveStoreHttp(options: ServeStoreHttpOptions): Promise<ServedStore> {
  const backend = openStoreBackend(options.location);
  try {
    // An unreachable server fails the start within a bounded time, before anything is served.
    await backend.ready?.();
  } catch (e) {
    await backend.close().catch(() => {});
    throw e;
  }
  const server = createStoreServer(backend, {
    logger: options.logger,
    version: options.version || undefined,
  });
  try {
    // A client subscribing right after initialize must hear every later change.
    await backend.watching?.();
    const http = await createStreamableHttpServer({
      // Store calls never send a request back to the caller mid-call: one JSON body answers each POST, so
      // concurrent calls in a session are bounded by the in-flight limit, not by the open-streams one.
      ...options.http,
      responseMode: options.http.responseMode ?? "json",
      onsession: async (transport) => {
        await server.connect(transport);
      },
      routes: { "/healthz": () => new Response("ok\n") },
      ...(options.logger ? { logger: options.logger } : {}),
    });
    return {
      url: http.url,
      async close() {
        await http.close();
        await server.close();
        await backend.close();
      },
    };
  } catch (e) {
    await server.close();
    await backend.close();
    throw e;
  }
}
