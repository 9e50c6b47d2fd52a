/**
 * `GET /metrics` on the HTTP listener: the Prometheus exposition of {@link ServeMetrics}. Off unless
 * switched on. Who may scrape: the holder of the metrics bearer token when one is configured (checked in
 * constant time; the listener's own credentials are then not asked for); otherwise an operator
 * authenticated by the listener's auth. A listener without auth is loopback-only (the serving policy
 * refuses anything else), and there the local user may scrape.
 */
import { timingSafeEqual } from "node:crypto";
import type { HttpMount } from "../transport/http-server/options.ts";
import { resolvePrincipal } from "./principal.ts";
import { PROMETHEUS_CONTENT_TYPE } from "./prometheus-text.ts";
import type { ServeMetrics } from "./serve-metrics.ts";

/** The path Prometheus scrapes. */
export const METRICS_PATH = "/metrics";

/** How `/metrics` is guarded. */
export interface MetricsEndpointOptions {
  /** A bearer token of its own (a scraper's); when set, only it is accepted. */
  token?: string;
}

/** The `/metrics` mount. `operators`: principal ids with the operator role. */
export function metricsMount(metrics: ServeMetrics, options: MetricsEndpointOptions, operators: ReadonlySet<string>): HttpMount {
  const expected = options.token ? Buffer.from(options.token) : undefined;
  const answer = (req: Request) =>
    req.method !== "GET" && req.method !== "HEAD"
      ? new Response("Method Not Allowed\n", { status: 405, headers: { allow: "GET, HEAD" } })
      : new Response(req.method === "HEAD" ? null : metrics.render(), {
          headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" },
        });
  return {
    match: (path) => path === METRICS_PATH,
    // With its own token the mount checks it; else the listener authenticates first.
    isPublic: () => expected !== undefined,
    async handle(req, caller) {
      if (expected) {
        const given = /^Bearer\s+(.+)$/i.exec(req.headers.get("authorization") ?? "")?.[1]?.trim();
        const ok = given !== undefined && Buffer.byteLength(given) === expected.length && timingSafeEqual(Buffer.from(given), expected);
        return ok
          ? answer(req)
          : new Response("metrics: a valid bearer token is required\n", {
              status: 401,
              headers: { "www-authenticate": 'Bearer realm="metrics"' },
            });
      }
      if (caller.authInfo && resolvePrincipal(caller.authInfo, operators).role !== "operator")
        return new Response("metrics: only operators (or the metrics token) may scrape\n", { status: 403 });
      return answer(req);
    },
  };
}
