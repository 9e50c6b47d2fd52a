/**
 * The OAuth provider against a real OpenID provider (`oidc-provider`) protecting a real MCP server: a login
 * through the loopback redirect, then concurrent refreshes that share one token request, a rejected token
 * recovered by a refresh inside the transport, and no token ever sent to the authorization server.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { McpClient } from "../../../mcp/client/client.ts";
import { StreamableHttpClientTransport } from "../streamable-http-client.ts";
import { followLogin, type OidcProvider, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { type ProtectedMcp, startProtectedMcp } from "@agentd/test-support/protected-mcp";
import { loginServer } from "./login.ts";
import { OAuthClientProvider, tokenKey } from "./provider.ts";
import { MemoryTokenStore } from "./token-store.ts";
import { maskSecretValues } from "../../../secret-values.ts";

setDefaultTimeout(30_000);

let oidc: OidcProvider;
let mcp: ProtectedMcp;
const store = new MemoryTokenStore();
let key: string;

beforeAll(async () => {
  let issuer = "";
  mcp = startProtectedMcp(() => issuer);
  oidc = await startOidcProvider(() => mcp.url);
  issuer = oidc.issuer;
  key = tokenKey("api", new URL(mcp.url));
  let followed: Promise<Response> | undefined;
  const result = await loginServer({
    server: "api",
    url: mcp.url,
    config: { clientId: "cli" },
    store,
    onUrl: (u) => void (followed = followLogin(u.href, "bob")),
  });
  expect(result.refreshable).toBe(true);
  expect((await followed!).status).toBe(200);
});
afterAll(async () => {
  await mcp?.stop();
  await oidc?.stop();
});

/** A fetch that records where each request went and with which Authorization header. */
function recordingFetch() {
  const seen: Array<{ url: string; method: string; authorization: string | null }> = [];
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    seen.push({ url, method: init?.method ?? "GET", authorization: new Headers(init?.headers).get("authorization") });
    return fetch(input, init);
  }) as typeof fetch;
  return { seen, fetch: f };
}

describe("OAuthClientProvider with a real OpenID provider", () => {
  test("concurrent token() calls near expiry share one refresh; the AS never sees a bearer token", async () => {
    const before = (await store.getTokens(key))!;
    await store.setTokens(key, { ...before, expiresAt: Date.now() + 1_000 });
    const rec = recordingFetch();
    const provider = new OAuthClientProvider({
      server: "api",
      url: new URL(mcp.url),
      settings: { clientId: "cli" },
      store,
      fetch: rec.fetch,
    });
    const tokens = await Promise.all([provider.token(), provider.token(), provider.token(), provider.token()]);
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(before.accessToken);
    const tokenPosts = rec.seen.filter((r) => r.method === "POST" && r.url.startsWith(oidc.issuer));
    expect(tokenPosts.length).toBe(1);
    expect(rec.seen.filter((r) => r.authorization?.startsWith("Bearer"))).toEqual([]);
    expect((await store.getTokens(key))!.accessToken).toBe(tokens[0]!);
  });

  test("a token the server rejects (401) is replaced by a refresh inside the transport, and the call goes through", async () => {
    const good = (await store.getTokens(key))!;
    await store.setTokens(key, { ...good, accessToken: "revoked-or-garbage", expiresAt: Date.now() + 3_600_000 });
    const rec = recordingFetch();
    const auth = new OAuthClientProvider({ server: "api", url: new URL(mcp.url), settings: { clientId: "cli" }, store, fetch: rec.fetch });
    const client = new McpClient({ name: "test", version: "1" });
    try {
      await client.connect(new StreamableHttpClientTransport(mcp.url, { name: "api", auth, openGetStream: false }), { timeoutMs: 20_000 });
      const result = await client.callTool("whoami", {});
      const text = (result.content[0] as { text: string }).text;
      expect(JSON.parse(text)).toMatchObject({ sub: "bob", aud: mcp.url });
    } finally {
      await client.close();
    }
    const now = (await store.getTokens(key))!;
    expect(now.accessToken).not.toBe("revoked-or-garbage");
    expect(mcp.authorizations).toContain("Bearer revoked-or-garbage");
    expect(mcp.authorizations.at(-1)).toBe(`Bearer ${now.accessToken}`);
    // The token went to the MCP server only; the refresh went to the AS without any bearer token.
    expect(rec.seen.every((r) => !r.authorization?.startsWith("Bearer"))).toBe(true);
  });

  test("the access token handed out is a secret: masked in every output", async () => {
    const held = (await store.getTokens(key))!;
    await store.setTokens(key, { ...held, expiresAt: Date.now() + 3_600_000 });
    const provider = new OAuthClientProvider({ server: "api", url: new URL(mcp.url), settings: { clientId: "cli" }, store });
    const token = (await provider.token())!;
    expect(maskSecretValues(`echoed: Bearer ${token}`)).toBe("echoed: Bearer [redacted]");
  });

  test("a headless provider with nothing stored fails at once, naming the login command", async () => {
    const provider = new OAuthClientProvider({
      server: "other",
      url: new URL(mcp.url),
      settings: { clientId: "cli" },
      store: new MemoryTokenStore(),
    });
    expect(await provider.token()).toBeUndefined();
    await expect(provider.challenge({ status: 401, wwwAuthenticate: null })).rejects.toThrow("run: agentd auth login other");
  });
});
