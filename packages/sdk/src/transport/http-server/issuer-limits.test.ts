/**
 * An OAuth issuer that answers without end must not fill agentd serve's memory: its discovery document and
 * its JWKS, asked while checking one request's JWT, are read to 1 MiB (the default) and cut off there —
 * the connection closed, the issuer answered "unavailable" (503 with Retry-After) and marked down, and the
 * error line naming the endpoint and the limit. Real HTTP on 127.0.0.1.
 */
import { afterEach, expect, test } from "bun:test";
import { generateKeyPair, SignJWT } from "jose";
import { type HostilePeer, startHostilePeer } from "@agentd/test-support/hostile-peer";
import { createIssuerLink, IssuerUnavailableError } from "./issuer-link.ts";
import { createJwtVerifier } from "./jwt-verifier.ts";

const SENT_AT_MOST = 32 * 1024 * 1024;
const RESOURCE = "http://127.0.0.1:1/mcp";
const endless = () => ({ endless: true as const, contentType: "application/json", head: '{"issuer":"', unit: "z".repeat(1000) });

async function token(issuer: string): Promise<string> {
  const { privateKey } = await generateKeyPair("ES256");
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: "alice", aud: RESOURCE, iat: now, exp: now + 300 })
    .setProtectedHeader({ alg: "ES256", kid: "k", typ: "at+jwt" })
    .setIssuer(issuer)
    .sign(privateKey);
}

let peer: HostilePeer | undefined;
afterEach(() => {
  peer?.stop();
  peer = undefined;
});

test("an endless discovery document: read to the limit, one line naming the endpoint and the limit", async () => {
  peer = startHostilePeer(endless);
  const link = createIssuerLink({ timeoutSeconds: 60 });
  const url = `${peer.url}/.well-known/openid-configuration`;
  const e = await link.json(`${url}?q=hidden`).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(IssuerUnavailableError);
  expect((e as Error).message).toBe(
    `OAuth issuer endpoint ${url} sent a response body over the 1 MiB limit; agentd stopped reading and closed the connection`,
  );
  expect(link.downFor()).toBeGreaterThan(0);
  expect(await peer.cutOff).toBeLessThan(SENT_AT_MOST);
});

test("discovery while checking a JWT: the issuer is unavailable, the body cut off", async () => {
  peer = startHostilePeer(endless);
  const verify = createJwtVerifier([{ issuer: peer.url, timeoutSeconds: 60 }], RESOURCE);
  const outcome = await verify(await token(peer.url));
  expect(outcome).toMatchObject({ ok: false, error: "unavailable" });
  expect(await peer.cutOff).toBeLessThan(SENT_AT_MOST);
  // Marked down: the next token is answered without a new request.
  const asked = peer.requests.length;
  expect(await verify(await token(peer.url))).toMatchObject({ ok: false, error: "unavailable" });
  expect(peer.requests.length).toBe(asked);
});

test("an endless JWKS while checking a JWT: the issuer is unavailable, the body cut off", async () => {
  peer = startHostilePeer(endless);
  const issuer = "http://127.0.0.1:9/issuer";
  const verify = createJwtVerifier([{ issuer, jwksUri: `${peer.url}/jwks`, timeoutSeconds: 60 }], RESOURCE);
  expect(await verify(await token(issuer))).toMatchObject({ ok: false, error: "unavailable" });
  expect(peer.requests.map((r) => r.path)).toEqual(["/jwks"]);
  expect(await peer.cutOff).toBeLessThan(SENT_AT_MOST);
});
