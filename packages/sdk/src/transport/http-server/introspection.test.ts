/**
 * RFC 7662 introspection on the HTTP server: opaque access tokens from a real OpenID provider
 * (`oidc-provider` on 127.0.0.1, introspection and revocation on). An active token is accepted and its
 * answer reused (one introspection call for many requests); revoked, expired, wrong-audience and unknown
 * tokens get 401 `invalid_token`; an inactive answer is reused briefly; a token whose scopes grant less
 * than the issuer requires gets 403. Scopes map to permissions through the issuer's `scopePermissions`.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { MACHINE_SECRET, type OidcProvider, RESOURCE_SERVER_SECRET, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { createResponder, initializeRequest, post } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "./index.ts";
import type { JwtIssuerOptions } from "./jwt-verifier.ts";

setDefaultTimeout(30_000);

let oidc: OidcProvider;
let cached: StreamableHttpServer;
let uncached: StreamableHttpServer;
const responder = createResponder();
const SCOPES = {
  "agentd:run": ["run", "status"],
  "agentd:status": ["status"],
  "agentd:operator": ["run", "status", "operator"],
} as JwtIssuerOptions["scopePermissions"];

beforeAll(async () => {
  oidc = await startOidcProvider(() => "", { accessTokenFormat: "opaque" });
  const issuer = (cacheSeconds: number): JwtIssuerOptions => ({
    issuer: oidc.issuer,
    scopePermissions: SCOPES,
    introspection: { clientId: "resource-server", clientSecret: RESOURCE_SERVER_SECRET, cacheSeconds },
  });
  cached = await createStreamableHttpServer({ onsession: responder.onsession, auth: { jwt: [issuer(60)] } });
  uncached = await createStreamableHttpServer({
    onsession: responder.onsession,
    auth: { jwt: [{ ...issuer(0), requiredScopes: ["mcp:tools"] }] },
  });
});
afterAll(async () => {
  await cached?.close();
  await uncached?.close();
  await oidc?.stop();
});

/** A client-credentials access token from the provider for `resource`. */
async function mint(resource: URL, scope: string, client = "machine"): Promise<string> {
  const r = await fetch(`${oidc.issuer}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`${client}:${MACHINE_SECRET}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", resource: resource.href, scope }),
  });
  const body = (await r.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** The provider's own introspection answer for `token` (as the resource server). */
async function askProvider(token: string): Promise<{ active: boolean }> {
  const r = await fetch(`${oidc.issuer}/token/introspection`, {
    method: "POST",
    headers: {
      authorization: `Basic ${btoa(`resource-server:${RESOURCE_SERVER_SECRET}`)}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ token }),
  });
  return (await r.json()) as { active: boolean };
}

const introspections = () => oidc.requests.filter((r) => r.path === "/token/introspection").length;

async function attempt(server: StreamableHttpServer, token: string): Promise<Response> {
  const r = await post(server.url, initializeRequest(), { authorization: `Bearer ${token}` });
  await r.body?.cancel();
  return r;
}

async function refused(server: StreamableHttpServer, token: string): Promise<void> {
  const r = await attempt(server, token);
  expect(r.status).toBe(401);
  expect(r.headers.get("www-authenticate")).toContain('error="invalid_token"');
}

describe("opaque access tokens checked by introspection", () => {
  test("an active token is accepted, its scopes mapped to permissions; the answer is reused", async () => {
    const token = await mint(cached.url, "agentd:status");
    expect(token.split(".").length).toBe(1); // opaque, not a JWT
    const before = introspections();
    for (let i = 0; i < 3; i++) expect((await attempt(cached, token)).status).toBe(200);
    expect(introspections() - before).toBe(1);
    expect(responder.sessions.at(-1)!.received[0]!.extra?.authInfo).toEqual({
      principal: `${oidc.issuer}#machine`,
      scheme: "jwt",
      permissions: ["status"],
      issuer: oidc.issuer,
    });
  });

  test("the operator scope gives the operator role and every permission", async () => {
    expect((await attempt(cached, await mint(cached.url, "agentd:operator"))).status).toBe(200);
    expect(responder.sessions.at(-1)!.received[0]!.extra?.authInfo).toMatchObject({
      role: "operator",
      permissions: ["run", "status", "operator"],
    });
  });

  test("a revoked token is refused (no reuse configured)", async () => {
    const token = await mint(uncached.url, "mcp:tools agentd:run");
    expect((await attempt(uncached, token)).status).toBe(200);
    const revoke = await fetch(`${oidc.issuer}/token/revocation`, {
      method: "POST",
      headers: { authorization: `Basic ${btoa(`machine:${MACHINE_SECRET}`)}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }),
    });
    expect(revoke.status).toBe(200);
    await refused(uncached, token);
  });

  test("a reused answer lasts no longer than the token: once the provider says it expired, it is refused", async () => {
    const token = await mint(cached.url, "agentd:run", "short-lived"); // 3 s of life; answers reused up to 60 s
    expect((await attempt(cached, token)).status).toBe(200);
    // Wait for the provider itself to call it inactive (its clock, not a guessed delay).
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await askProvider(token)).active) await Bun.sleep(100);
    expect((await askProvider(token)).active).toBe(false);
    await refused(cached, token);
  });

  test("a token for another resource and an unknown token are refused", async () => {
    await refused(uncached, await mint(cached.url, "mcp:tools agentd:run")); // audience: the other server
    await refused(uncached, "not-a-token-this-provider-issued");
  });

  test("an inactive answer is reused briefly: the same bad token twice is one introspection", async () => {
    const before = introspections();
    await refused(cached, "unknown-opaque-token-0123456789");
    await refused(cached, "unknown-opaque-token-0123456789");
    expect(introspections() - before).toBe(1);
  });

  test("a token without the issuer's required scope gets 403 insufficient_scope", async () => {
    const r = await attempt(uncached, await mint(uncached.url, "agentd:run"));
    expect(r.status).toBe(403);
    expect(r.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="mcp:tools"');
  });

  test("the protected-resource metadata names the issuer", async () => {
    const md = await (await fetch(new URL("/.well-known/oauth-protected-resource", cached.url))).json();
    expect(md.authorization_servers).toEqual([oidc.issuer]);
  });
});
