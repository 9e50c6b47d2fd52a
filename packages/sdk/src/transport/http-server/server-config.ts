/**
 * The server's configuration with the parts only some configurations use: the trust of a proxy in front
 * (`behindProxy`: `Forwarded` and `X-Forwarded-*` parsing, address ranges over `node:net`) and the bearer
 * check (configured tokens over `node:crypto`, JWT verification, introspection, the issuers' links).
 *
 * Each is imported here, at the server's creation, and only when configured: a server without them does not
 * load their modules, which cost about 1 MB of resident memory every server kept while few use them
 * (bench/NOTES.md, idle sessions). A mistake in them is still reported by `createStreamableHttpServer`,
 * before it listens, never at the first request.
 */
import { resolveOptions, type ResolvedServerConfig, type StreamableHttpServerOptions } from "./options.ts";

/** Resolve the options ({@link resolveOptions}) and load what they configure. */
export async function loadServerConfig(options: StreamableHttpServerOptions): Promise<ResolvedServerConfig> {
  const config = resolveOptions(options);
  const behindProxy = options.behindProxy || undefined;
  const bearerOn = config.bearerTokens.length > 0 || config.jwtIssuers.length > 0;
  const [proxyTrust, bearerAuth] = await Promise.all([
    behindProxy && import("./behind-proxy.ts"),
    bearerOn ? import("./bearer-auth.ts") : undefined,
  ]);
  if (behindProxy && proxyTrust) config.proxy = proxyTrust.createProxyTrust(behindProxy);
  if (bearerAuth) config.bearer = bearerAuth.createBearerCheck;
  return config;
}
