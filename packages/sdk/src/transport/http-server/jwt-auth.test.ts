/**
 * The HTTP server as an OAuth resource server: JWT access tokens from configured issuers. Tokens minted by
 * a real OpenID provider (`oidc-provider`, client credentials with a resource indicator) are accepted;
 * expired, wrong-audience, unknown-issuer, unsigned (`alg: none`), tampered and rotated-away-key tokens are
 * refused with 401 `invalid_token`; a token without the required scope gets 403 `insufficient_scope`. The
 * official SDK client, with its client-credentials OAuth provider, discovers and authorizes by itself.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SignJWT } from "jose";
import { MACHINE_SECRET, type OidcProvider, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { type JwtIssuer, startJwtIssuer } from "./__fixtures__/jwt-issuer.ts";
import { createResponder, initializeRequest, post } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "./index.ts";

setDefaultTimeout(30_000);

let oidc: OidcProvider;
let own: JwtIssuer;
let server: StreamableHttpServer;
const responder = createResponder();
const STATIC = "static-token-0123456789abcdef";

beforeAll(async () => {
  let resource = "";
  oidc = await startOidcProvider(() => resource);
  own = await startJwtIssuer();
  server = await createStreamableHttpServer({
    onsession: responder.onsession,
    auth: {
      bearerTokens: [STATIC],
      jwt: [
        { issuer: oidc.issuer, operatorScope: "agentd:operator" },
        { issuer: own.issuer, requiredScopes: ["mcp:tools"], operatorScope: "agentd:operator", jwksCooldownSeconds: 0 },
      ],
    },
  });
  resource = server.url.href;
});
afterAll(async () => {
  await server?.close();
  await oidc?.stop();
  await own?.stop();
});

const now = () => Math.floor(Date.now() / 1000);
const claims = (extra: Record<string, unknown> = {}) => ({
  sub: "alice",
  aud: server.url.href,
  scope: "mcp:tools",
  iat: now(),
  exp: now() + 300,
  ...extra,
});
const tryToken = (token: string) => post(server.url, initializeRequest(), { authorization: `Bearer ${token}` });

async function refused(token: string, status = 401, error = "invalid_token"): Promise<void> {
  const r = await tryToken(token);
  await r.body?.cancel();
  expect(r.status).toBe(status);
  expect(r.headers.get("www-authenticate")).toContain(`error="${error}"`);
}

describe("JWT access tokens", () => {
  test("a token from the real OpenID provider (client credentials, resource indicator) is accepted", async () => {
    const r = await fetch(`${oidc.issuer}/token`, {
      method: "POST",
      headers: { authorization: `Basic ${btoa(`machine:${MACHINE_SECRET}`)}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", resource: server.url.href, scope: "mcp:tools" }),
    });
    const { access_token } = (await r.json()) as { access_token: string };
    const ok = await tryToken(access_token);
    await ok.body?.cancel();
    expect(ok.status).toBe(200);
    const extra = responder.sessions.at(-1)!.received[0]!.extra;
    expect(extra?.authInfo).toEqual({ principal: `${oidc.issuer}#machine`, scheme: "jwt" });
  });

  test("the protected-resource metadata names both authorization servers", async () => {
    const md = await (await fetch(new URL("/.well-known/oauth-protected-resource", server.url))).json();
    expect(md.authorization_servers).toEqual([oidc.issuer, own.issuer]);
  });

  test("operator scope gives the operator role; static tokens still work", async () => {
    const ok = await tryToken(await own.sign(claims({ scope: "mcp:tools agentd:operator" })));
    await ok.body?.cancel();
    expect(ok.status).toBe(200);
    expect(responder.sessions.at(-1)!.received[0]!.extra?.authInfo).toEqual({
      principal: `${own.issuer}#alice`,
      scheme: "jwt",
      role: "operator",
    });
    const s = await tryToken(STATIC);
    await s.body?.cancel();
    expect(s.status).toBe(200);
  });

  test("expired, wrong audience, unknown issuer, alg none and tampered tokens get 401 invalid_token", async () => {
    await refused(await own.sign(claims({ exp: now() - 600, iat: now() - 900 })));
    await refused(await own.sign(claims({ aud: "https://other.example/mcp" })));
    await refused(await own.sign(claims({ iss: "https://evil.example" })));
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    await refused(`${b64({ alg: "none", typ: "JWT" })}.${b64({ ...claims(), iss: own.issuer })}.`);
    const good = await own.sign(claims());
    const [h, , sig] = good.split(".");
    await refused(`${h}.${b64({ ...claims({ sub: "mallory" }), iss: own.issuer })}.${sig}`);
    await refused("not-a-jwt-and-not-a-static-token");
  });

  test("RFC 9068 §4: a JWT whose typ is not at+jwt (an ID token, a plain JWT) is not an access token", async () => {
    const { key, kid } = own.current();
    const withTyp = (typ: string | undefined) =>
      new SignJWT(claims())
        .setProtectedHeader({ alg: "ES256", kid, ...(typ ? { typ } : {}) })
        .setIssuer(own.issuer)
        .sign(key);
    await refused(await withTyp("JWT"));
    await refused(await withTyp(undefined));
    await refused(await withTyp("id_token+jwt"));
    for (const typ of ["at+jwt", "application/at+jwt", "AT+JWT"]) {
      const ok = await tryToken(await withTyp(typ));
      await ok.body?.cancel();
      expect(ok.status).toBe(200);
    }
  });

  test("accessTokenTypes widens the accepted typ values for an issuer that cannot mint at+jwt", async () => {
    const wide = await createStreamableHttpServer({
      onsession: responder.onsession,
      auth: { jwt: [{ issuer: own.issuer, accessTokenTypes: ["at+jwt", "JWT"] }] },
    });
    try {
      const { key, kid } = own.current();
      const sign = (typ: string) =>
        new SignJWT({ ...claims(), aud: wide.url.href }).setProtectedHeader({ alg: "ES256", kid, typ }).setIssuer(own.issuer).sign(key);
      const status = async (typ: string) => {
        const r = await post(wide.url, initializeRequest(), { authorization: `Bearer ${await sign(typ)}` });
        await r.body?.cancel();
        return r.status;
      };
      expect([await status("JWT"), await status("at+jwt"), await status("id_token+jwt")]).toEqual([200, 200, 401]);
    } finally {
      await wide.close();
    }
  });

  test("a token without the required scope gets 403 insufficient_scope naming it", async () => {
    const r = await tryToken(await own.sign(claims({ scope: "other" })));
    await r.body?.cancel();
    expect(r.status).toBe(403);
    expect(r.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="mcp:tools"');
  });

  test("after a key rotation the new key is fetched and tokens of the retired key are refused", async () => {
    const old = own.current();
    const before = await tryToken(await own.sign(claims()));
    await before.body?.cancel();
    expect(before.status).toBe(200);
    await own.rotate();
    const fresh = await tryToken(await own.sign(claims()));
    await fresh.body?.cancel();
    expect(fresh.status).toBe(200);
    await refused(await own.sign(claims(), old.key, old.kid));
  });

  test("the official SDK client with its OAuth provider discovers the issuer, gets a token and connects", async () => {
    const authProvider = new ClientCredentialsProvider({
      clientId: "machine",
      clientSecret: MACHINE_SECRET,
      expectedIssuer: oidc.issuer,
      scope: "mcp:tools",
    });
    const client = new Client({ name: "official", version: "1.0.0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(server.url, { authProvider }));
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain("echo");
      expect(responder.sessions.at(-1)!.received[0]!.extra?.authInfo).toEqual({ principal: `${oidc.issuer}#machine`, scheme: "jwt" });
    } finally {
      await client.close();
    }
  });
});
