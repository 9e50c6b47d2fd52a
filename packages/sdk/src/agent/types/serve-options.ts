/**
 * Where and how an agent serves (`agent.serve(options)`): kept with the agent's other option types, below
 * the rooms that build serving, so the options can name them without importing serving itself.
 */
import type { A2aServeOptions } from "../../a2a/server/index.ts";
import type { MetricsEndpointOptions } from "../../serve/metrics-endpoint.ts";
import type { StreamableHttpServerOptions } from "../../transport/http-server/options.ts";

/** Streamable HTTP(S) serving: the HTTP server's options, without the parts the agent provides. */
export type HttpServeOptions = Omit<StreamableHttpServerOptions, "onsession" | "routes" | "logger" | "mounts">;

/**
 * Where to serve: `{ stdio: true }` (stdin/stdout) or `{ http: { hostname, port, tls, auth, … } }`; with
 * `a2a`, the HTTP listener also serves A2A v1.0 (agent card, JSON-RPC at /a2a, HTTP+JSON at /a2a/rest) —
 * absent, as the agent's `serve.a2a` says; `true`, that or the default card; `false`, not at all;
 * with `metrics`, it serves `GET /metrics` in the Prometheus text format (its own token, or operators);
 * with `console`, the operator's console at /console.
 */
export type ServeOptions =
  | { stdio: true | { maxFrameBytes?: number } }
  | {
      http: HttpServeOptions;
      a2a?: A2aServeOptions | boolean;
      metrics?: MetricsEndpointOptions | true;
      /**
       * Also serve the operator's console at `/console` (docs/console.md). Off by default. `traceUrl`: the OTLP
       * backend's trace page with `{traceId}` in it (`telemetry.traceUrl`), where a run's trace id links.
       */
      console?: boolean | { traceUrl?: string };
    };

/** A running endpoint. */
export interface ServedEndpoint {
  /** The MCP endpoint (HTTP only). */
  readonly url?: URL;
  /** Resolves when the peer ended it by itself (stdio: stdin closed); HTTP ends only by drain or close. */
  readonly ended: Promise<"stdin-closed">;
}
