/**
 * Test fixture: a real OpenID provider (`oidc-provider`, pinned dev dependency) on 127.0.0.1, port 0.
 *
 * Clients: `machine` (client credentials, client_secret_basic) and `cli` (a native public client:
 * authorization code with PKCE S256, refresh tokens, loopback redirect on any port). Resource indicators
 * (RFC 8707) are on: a token for the MCP resource is a JWT (ES256) whose `aud` is that resource and whose
 * scope is `mcp:tools`. Logins use the provider's development interactions (any name, then consent), which
 * {@link followLogin} drives with fetch like a browser would.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/** A running provider. */
export interface OidcProvider {
  issuer: string;
  provider: Provider;
  /** Every request the provider received (method and path), oldest first: to count token-endpoint hits. */
  requests: { method: string; path: string }[];
  stop(): Promise<void>;
}

/** The `machine` client's secret. */
export const MACHINE_SECRET = "machine-secret-0123456789abcdef";

/** The `resource-server` client's secret (it may introspect tokens). */
export const RESOURCE_SERVER_SECRET = "resource-server-secret-0123456789";

/** Options of {@link startOidcProvider}. */
export interface OidcProviderOptions {
  /**
   * `opaque`: access tokens are opaque strings, checked by introspection (RFC 7662, at `/token/introspection`,
   * by the `resource-server` client) and revocable (RFC 7009, `/token/revocation`). Default `jwt`.
   * Tokens of the `short-lived` client (client credentials, same secret as `machine`) expire after 3 s.
   */
  accessTokenFormat?: "jwt" | "opaque";
}

/** Start a provider that issues access tokens (JWT unless `options` say opaque) for `resource`. */
export async function startOidcProvider(resource: () => string, options: OidcProviderOptions = {}): Promise<OidcProvider> {
  const format = options.accessTokenFormat ?? "jwt";
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  // WebCrypto's export carries key_ops ["sign"] and ext, which the published JWKS must not (verifiers skip it).
  const { key_ops: _ops, ext: _ext, ...exported } = await crypto.subtle.exportKey("jwk", privateKey);
  const jwk = { ...exported, kid: "k1", use: "sig", alg: "ES256" };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: "machine",
        client_secret: MACHINE_SECRET,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_basic",
        id_token_signed_response_alg: "ES256",
      },
      {
        client_id: "short-lived",
        client_secret: MACHINE_SECRET,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_basic",
        id_token_signed_response_alg: "ES256",
      },
      {
        client_id: "resource-server",
        client_secret: RESOURCE_SERVER_SECRET,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_basic",
        id_token_signed_response_alg: "ES256",
      },
      {
        client_id: "cli",
        application_type: "native",
        id_token_signed_response_alg: "ES256",
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        redirect_uris: ["http://127.0.0.1/callback"],
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: ["test-cookie-key-0123456789"] },
    scopes: ["openid", "offline_access", "mcp:tools"],
    features: {
      devInteractions: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: format === "opaque" },
      revocation: { enabled: format === "opaque" },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource(),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, _resource: string, client: { clientId: string }) => ({
          scope: "mcp:tools agentd:run agentd:status agentd:operator",
          accessTokenFormat: format,
          accessTokenTTL: client.clientId === "short-lived" ? 3 : 600,
          ...(format === "jwt" ? { jwt: { sign: { alg: "ES256" } } } : {}),
        }),
      },
    },
    // A native client gets a refresh token with every code (the default asks for offline_access too).
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(g: string): boolean }) => client.grantTypeAllowed("refresh_token"),
  });
  provider.on("server_error", (_ctx: unknown, err: Error) => process.stderr.write(`[oidc-provider] ${err.message}\n`));
  const requests: OidcProvider["requests"] = [];
  server.on("request", (req: http.IncomingMessage) =>
    requests.push({ method: req.method ?? "", path: new URL(req.url ?? "/", issuer).pathname }),
  );
  server.on("request", provider.callback());
  return {
    issuer,
    provider,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Play the person at the browser: open the authorization URL, sign in as `account` and consent on the
 * provider's pages (cookies kept like a browser), and follow the final redirect to the client's loopback
 * listener. Resolves with the listener's answer.
 */
export async function followLogin(authorizationUrl: string, account: string): Promise<Response> {
  const jar = new Map<string, string>();
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const keep = (r: Response) => {
    for (const c of r.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const at = pair!.indexOf("=");
      jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
  };
  let url = new URL(authorizationUrl);
  const issuerOrigin = url.origin;
  let init: RequestInit = { method: "GET" };
  for (let hop = 0; hop < 20; hop++) {
    if (url.origin !== issuerOrigin) return fetch(url); // back to the client's redirect URI
    const r = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { cookie: cookieHeader(), ...(init.headers as Record<string, string>) },
    });
    keep(r);
    const location = r.headers.get("location");
    if (location) {
      await r.body?.cancel();
      url = new URL(location, url);
      init = { method: "GET" };
      continue;
    }
    const html = await r.text();
    if (r.status !== 200) throw new Error(`the provider answered ${r.status}: ${html.slice(0, 300)}`);
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (!prompt) throw new Error(`unexpected page from the provider: ${html.slice(0, 300)}`);
    const form = new URLSearchParams({ prompt, ...(prompt === "login" ? { login: account, password: "any" } : {}) });
    init = { method: "POST", body: form.toString(), headers: { "content-type": "application/x-www-form-urlencoded" } };
  }
  throw new Error("too many redirects during the login");
}
