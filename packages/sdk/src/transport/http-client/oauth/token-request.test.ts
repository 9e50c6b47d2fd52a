/**
 * The token endpoint and the authorization response as oauth4webapi checks them, against a scripted
 * authorization server on 127.0.0.1: what is sent (grant, `resource`, scope, client authentication, PKCE),
 * each kind of refusal read into the server's `error` code (the refresh drops its tokens on `invalid_grant`),
 * answers that are not usable, and authorization responses that are not from this request.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { AgentdError } from "../../../wire/errors.ts";
import type { Discovery } from "./discovery.ts";
import { OAuthClientProvider } from "./provider.ts";
import { requestToken, TokenRequestError } from "./token-request.ts";
import { MemoryTokenStore } from "./token-store.ts";

/** What the token endpoint answers next, and the token requests it received. */
let answer: () => Response = () => Response.json({});
const received: { form: URLSearchParams; authorization: string | null }[] = [];
/** The authorization request of the last authorization code grant. */
let challenge = "";
let server: ReturnType<typeof Bun.serve>;
let base = "";

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/.well-known/oauth-protected-resource/mcp")
        return Response.json({ resource: `${base}/mcp`, authorization_servers: [base] });
      if (path === "/.well-known/oauth-authorization-server")
        return Response.json({
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          code_challenge_methods_supported: ["S256"],
        });
      if (path === "/token") {
        received.push({ form: new URLSearchParams(await req.text()), authorization: req.headers.get("authorization") });
        return answer();
      }
      return new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server?.stop(true));

const discovery = (): Discovery => ({
  resource: `${base}/mcp`,
  issuer: base,
  metadata: { issuer: base, token_endpoint: `${base}/token` },
});
const credentials = { clientId: "machine-1", clientSecret: "s3cret", method: "client_secret_basic" as const };
const clientCredentials = (d = discovery()) =>
  requestToken(fetch, d, credentials, { grant_type: "client_credentials", fields: { scope: "mcp:tools" } }, "api");

describe("token endpoint", () => {
  test("a client credentials grant sends the grant, scope and resource with Basic credentials, and reads the answer", async () => {
    received.length = 0;
    answer = () => Response.json({ access_token: "at-1", token_type: "Bearer", expires_in: 600 });
    const before = Date.now();
    const tokens = await clientCredentials();
    expect(tokens).toMatchObject({ accessToken: "at-1", scope: "mcp:tools", resource: `${base}/mcp`, issuer: base });
    expect(tokens.expiresAt! - before).toBeGreaterThanOrEqual(600_000);
    expect(tokens.refreshToken).toBeUndefined();
    const [sent] = received;
    expect(Object.fromEntries(sent!.form)).toEqual({ grant_type: "client_credentials", scope: "mcp:tools", resource: `${base}/mcp` });
    expect(Buffer.from(sent!.authorization!.slice(6), "base64").toString()).toBe("machine-1:s3cret");
  });

  test("refusals keep the server's error code: in a JSON body, behind a WWW-Authenticate challenge, or the HTTP status", async () => {
    const refused = async () => {
      const e = await clientCredentials().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(TokenRequestError);
      return e as TokenRequestError;
    };
    answer = () => Response.json({ error: "invalid_grant", error_description: "expired" }, { status: 400 });
    const e = await refused();
    expect(e.error).toBe("invalid_grant");
    expect(e.message).toBe("MCP server 'api': the authorization server refused the client_credentials grant (invalid_grant: expired)");
    answer = () => Response.json({ error: "invalid_client" }, { status: 401, headers: { "www-authenticate": 'Basic realm="as"' } });
    expect((await refused()).error).toBe("invalid_client");
    answer = () => Response.json({ error: "temporarily_unavailable" }, { status: 503 });
    expect((await refused()).error).toBe("temporarily_unavailable");
    answer = () => new Response("<html>bad gateway</html>", { status: 502, headers: { "content-type": "text/html" } });
    expect((await refused()).error).toBe("http_502");
  });

  test("an answer that is not usable is one line, never a token", async () => {
    const unusable = async () => {
      const e = await clientCredentials().catch((x: unknown) => x);
      expect(AgentdError.isInstance(e) && e.code).toBe("E_UNAUTHORIZED");
      return (e as Error).message;
    };
    answer = () => Response.json({ token_type: "Bearer" });
    expect(await unusable()).toStartWith("MCP server 'api': the token endpoint's answer is not usable: ");
    answer = () => Response.json({ access_token: "at-dpop", token_type: "DPoP" });
    expect(await unusable()).toBe("MCP server 'api': the token endpoint issued a 'dpop' token; only Bearer is supported");
    answer = () => Response.json({ access_token: "at-mac", token_type: "mac" });
    const mac = await unusable();
    expect(mac).toBe("MCP server 'api': the token endpoint issued a 'mac' token; only Bearer is supported");
    expect(mac).not.toContain("at-mac");
  });

  test("an endpoint that cannot be reached, or is plain http:// off loopback, is one line", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const gone = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const d = discovery();
    await expect(clientCredentials({ ...d, metadata: { ...d.metadata, token_endpoint: `${gone}/token` } })).rejects.toThrow(
      `MCP server 'api': token endpoint ${gone} could not be reached: `,
    );
    await expect(clientCredentials({ ...d, metadata: { ...d.metadata, token_endpoint: "http://as.example/token" } })).rejects.toThrow(
      "MCP server 'api': token endpoint http://as.example is not https://; OAuth needs TLS off loopback",
    );
  });
});

describe("authorization response", () => {
  /** A provider whose "person" answers the authorization request with `reply(request)`. */
  const provider = (reply: (request: URLSearchParams) => Record<string, string>) =>
    new OAuthClientProvider({
      server: "api",
      url: new URL(`${base}/mcp`),
      settings: { clientId: "cli" },
      store: new MemoryTokenStore(),
      interactive: {
        redirectUri: "http://127.0.0.1/callback",
        async authorize(url) {
          challenge = url.searchParams.get("code_challenge") ?? "";
          return new URLSearchParams(reply(url.searchParams));
        },
      },
    });

  test("the code is redeemed with the PKCE verifier of the challenge sent", async () => {
    received.length = 0;
    answer = () => Response.json({ access_token: "at-code", token_type: "bearer", refresh_token: "rt-1" });
    const p = provider((q) => ({ code: "c-1", state: q.get("state")!, iss: base }));
    expect(await p.challenge({ status: 401, wwwAuthenticate: null })).toBe(true);
    expect(await p.token()).toBe("at-code");
    const form = received[0]!.form;
    expect(form.get("grant_type")).toBe("authorization_code");
    expect(form.get("code")).toBe("c-1");
    expect(form.get("client_id")).toBe("cli");
    expect(form.get("resource")).toBe(`${base}/mcp`);
    expect(createHash("sha256").update(form.get("code_verifier")!).digest("base64url")).toBe(challenge);
  });

  test("a wrong state, another issuer or a refusal ends the grant with one line, before any token request", async () => {
    received.length = 0;
    const refused = (reply: (q: URLSearchParams) => Record<string, string>) =>
      provider(reply).challenge({ status: 401, wwwAuthenticate: null });
    await expect(refused(() => ({ code: "c", state: "forged" }))).rejects.toThrow(
      "MCP server 'api': the authorization response is not from this request (unexpected \"state\" response parameter value); not using it",
    );
    await expect(refused((q) => ({ code: "c", state: q.get("state")!, iss: "https://other.example" }))).rejects.toThrow(
      'the authorization response is not from this request (unexpected "iss" (issuer) response parameter value)',
    );
    await expect(
      refused((q) => ({ error: "access_denied", error_description: "the person said no", state: q.get("state")! })),
    ).rejects.toThrow("MCP server 'api': authorization was refused (access_denied: the person said no)");
    await expect(refused((q) => ({ state: q.get("state")! }))).rejects.toThrow(
      "MCP server 'api': the authorization response carries no code",
    );
    expect(received).toEqual([]);
  });
});
