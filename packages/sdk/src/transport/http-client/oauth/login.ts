/**
 * `agentd auth login|status|logout` as SDK functions: run the authorization code grant for one configured
 * server with a person at a browser, list what is stored, forget it.
 */
import { AgentdError } from "../../../wire/errors.ts";
import { fetchSameOrigin } from "../fetch-same-origin.ts";
import { startLoopbackRedirect } from "./loopback-redirect.ts";
import { OAuthClientProvider, tokenKey } from "./provider.ts";
import { type OAuthConfig, resolveOAuthSettings } from "./settings.ts";
import { defaultTokenStore, type TokenStore } from "./token-store.ts";

/** Options of {@link loginServer}. */
export interface LoginOptions {
  server: string;
  url: string;
  config: OAuthConfig;
  store?: TokenStore;
  /** Called with the URL the person must visit (print it; try to open a browser). */
  onUrl: (url: URL) => void;
  /** Loopback port of the redirect listener (default: any free one). */
  port?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

/** What a login obtained (never the tokens themselves). */
export interface LoginResult {
  scope?: string;
  expiresAt?: number;
  refreshable: boolean;
}

/** Run the authorization code grant for one server and store its tokens. */
export async function loginServer(options: LoginOptions): Promise<LoginResult> {
  const url = new URL(options.url);
  const store = options.store ?? (await defaultTokenStore());
  const fetchFn = options.fetch ?? fetch;
  const settings = resolveOAuthSettings(options.server, options.config);
  if (settings.grant === "client_credentials")
    throw new AgentdError(
      "E_USAGE",
      `MCP server '${options.server}' uses the client_credentials grant: agentd gets its tokens by itself, no login needed`,
    );
  const redirect = startLoopbackRedirect({
    onUrl: options.onUrl,
    port: options.port,
    timeoutMs: options.timeoutMs || undefined,
  });
  try {
    // Ask the server first: its 401 challenge may name the metadata and the scopes it wants.
    const ping = {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
      signal: options.signal,
    };
    const probe = await fetchSameOrigin(fetchFn, url, ping, options.server).catch((e) => {
      if (AgentdError.isInstance(e)) throw e;
      throw new AgentdError(
        "E_UPSTREAM",
        `MCP server '${options.server}' could not be reached: ${e instanceof Error ? e.message : String(e)}`,
      );
    });
    await probe.body?.cancel().catch(() => {});
    const provider = new OAuthClientProvider({ server: options.server, url, settings, store, interactive: redirect, fetch: fetchFn });
    await provider.challenge(
      { status: 401, wwwAuthenticate: probe.status === 401 ? probe.headers.get("www-authenticate") : null },
      options.signal,
    );
    const stored = await store.getTokens(tokenKey(options.server, url));
    if (!stored) throw new AgentdError("E_UNAUTHORIZED", `MCP server '${options.server}': the login obtained no token`);
    return {
      scope: stored.scope || undefined,
      expiresAt: stored.expiresAt || undefined,
      refreshable: stored.refreshToken !== undefined,
    };
  } finally {
    await redirect.close();
  }
}

/** One stored login, as `agentd auth status` shows it. */
export interface LoginStatus {
  server: string;
  resource: string;
  issuer: string;
  scope?: string;
  expiresAt?: number;
  refreshable: boolean;
}

/** Every stored login (no token values). */
export async function loginStatus(store?: TokenStore): Promise<LoginStatus[]> {
  const s = store ?? (await defaultTokenStore());
  const out: LoginStatus[] = [];
  for (const key of await s.keys()) {
    const t = await s.getTokens(key);
    if (!t) continue;
    out.push({
      server: key.slice(0, key.indexOf(" ")),
      resource: t.resource,
      issuer: t.issuer,
      scope: t.scope || undefined,
      expiresAt: t.expiresAt || undefined,
      refreshable: t.refreshToken !== undefined,
    });
  }
  return out;
}

/** Forget the stored tokens of `server` (every URL it had); resolves how many were removed. */
export async function logoutServer(server: string, store?: TokenStore): Promise<number> {
  const s = store ?? (await defaultTokenStore());
  const keys = (await s.keys()).filter((k) => k.startsWith(`${server} `));
  for (const k of keys) await s.setTokens(k, undefined);
  return keys.length;
}
