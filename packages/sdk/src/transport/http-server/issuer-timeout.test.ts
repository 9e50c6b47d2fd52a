/**
 * An OAuth issuer that never answers must not hold clients' requests: a loopback server accepts connections
 * and sends nothing. Its metadata (discovery), its JWKS and its introspection endpoint are each tried behind
 * agentd serve: the first request gets 503 with `Retry-After` once the (short, configured) timeout passes,
 * the stalled connection is closed by agentd, and later requests get 503 at once without a new connection.
 */
import { afterEach, describe, expect, test } from "bun:test";
import net from "node:net";
import { generateKeyPair, SignJWT } from "jose";
import { createResponder, post } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "./index.ts";
import type { JwtIssuerOptions } from "./jwt-verifier.ts";

/** A TCP server on 127.0.0.1 that accepts and never writes; it counts connections and sees them close. */
async function startSilentIssuer() {
  const open = new Set<net.Socket>();
  let accepted = 0;
  let closed = 0;
  const closeWaiters: (() => void)[] = [];
  const server = net.createServer((socket) => {
    accepted++;
    open.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => {
      open.delete(socket);
      closed++;
      for (const w of closeWaiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    /** Resolves once `n` connections have been closed (by agentd: this side never closes them). */
    closedAtLeast: (n: number) =>
      new Promise<void>((resolve) => (closed >= n ? resolve() : closeWaiters.push(() => closed >= n && resolve()))),
    close: () => {
      for (const s of open) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let server: StreamableHttpServer | undefined;
let silent: Awaited<ReturnType<typeof startSilentIssuer>> | undefined;
afterEach(async () => {
  await server?.close();
  await silent?.close();
  server = silent = undefined;
});

const initialize = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

async function token(issuer: string, aud: string): Promise<string> {
  const { privateKey } = await generateKeyPair("ES256");
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: "alice", aud, iat: now, exp: now + 300 })
    .setProtectedHeader({ alg: "ES256", kid: "k", typ: "at+jwt" })
    .setIssuer(issuer)
    .sign(privateKey);
}

/** Serve with one issuer (built from the silent server's URL) and try the token twice. */
async function tryTwice(issuerFor: (silentUrl: string) => JwtIssuerOptions, opaque = false) {
  silent = await startSilentIssuer();
  const issuer = issuerFor(silent.url);
  server = await createStreamableHttpServer({ onsession: createResponder().onsession, auth: { jwt: [issuer] } });
  const bearer = opaque ? "opaque-token-0123456789abcdef" : await token(issuer.issuer, server.url.href);
  const first = await post(server.url, initialize, { authorization: `Bearer ${bearer}` });
  await first.body?.cancel();
  expect(first.status).toBe(503);
  expect(Number(first.headers.get("retry-after"))).toBeGreaterThan(0);
  // agentd gave up the stalled request: the connection it opened is closed, not held.
  const opened = silent.accepted();
  expect(opened).toBeGreaterThan(0);
  await silent.closedAtLeast(opened);
  // The issuer is known to be down: the next request is answered without asking it again.
  const second = await post(server.url, initialize, { authorization: `Bearer ${bearer}` });
  await second.body?.cancel();
  expect(second.status).toBe(503);
  expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(silent.accepted()).toBe(opened);
}

describe("an issuer that never answers", () => {
  test("discovery (no jwksUri): 503 with Retry-After after the timeout, then 503 at once", async () => {
    await tryTwice((url) => ({ issuer: url, timeoutSeconds: 0.3, unavailableSeconds: 60 }));
  }, 20_000);

  test("the JWKS: 503 with Retry-After after the timeout, then 503 at once", async () => {
    await tryTwice((url) => ({ issuer: "http://127.0.0.1:9/issuer", jwksUri: `${url}/jwks`, timeoutSeconds: 0.3, unavailableSeconds: 60 }));
  }, 20_000);

  test("introspection: 503 with Retry-After after the timeout, then 503 at once", async () => {
    await tryTwice(
      (url) => ({
        issuer: "http://127.0.0.1:9/issuer",
        timeoutSeconds: 0.3,
        unavailableSeconds: 60,
        introspection: { endpoint: `${url}/introspect`, clientId: "agentd", clientSecret: "s" },
      }),
      true,
    );
  }, 20_000);
});
