/**
 * What a hostile authorization server cannot do to agentd's OAuth client, over real HTTP on 127.0.0.1:
 * answer with endless metadata or an endless token answer (read to 1 MiB, then cut off, one line naming the
 * endpoint and the limit), or redirect a token request carrying the client's secret to another origin.
 */
import { afterEach, expect, test } from "bun:test";
import { type HostilePeer, type RedirectPair, startHostilePeer, startRedirectPair } from "@agentd/test-support/hostile-peer";
import { AgentdError } from "../../../wire/errors.ts";
import type { Discovery } from "./discovery.ts";
import { fetchMetadata } from "./metadata.ts";
import { requestToken } from "./token-request.ts";

const SENT_AT_MOST = 32 * 1024 * 1024;
const SECRET = "client-SECRET-0123456789";
const endless = () => ({ endless: true as const, contentType: "application/json", head: '{"access_token":"', unit: "t".repeat(1000) });

async function failureOf(run: () => Promise<unknown>): Promise<AgentdError> {
  try {
    await run();
  } catch (e) {
    if (AgentdError.isInstance(e)) return e;
    throw e;
  }
  throw new Error("the call succeeded");
}

const discoveryAt = (base: string): Discovery => ({
  resource: `${base}/mcp`,
  issuer: base,
  metadata: { issuer: base, token_endpoint: `${base}/token` },
});
const grant = (base: string) =>
  requestToken(
    fetch,
    discoveryAt(base),
    { clientId: "machine-1", clientSecret: SECRET, method: "client_secret_post" },
    { grant_type: "client_credentials", fields: { scope: "mcp:tools" } },
    "api",
  );

let peer: HostilePeer | undefined;
let pair: RedirectPair | undefined;
afterEach(() => {
  peer?.stop();
  pair?.stop();
  peer = pair = undefined;
});

test("endless metadata: read to 1 MiB, one line naming the document and the limit", async () => {
  peer = startHostilePeer(endless);
  const url = new URL(`${peer.url}/.well-known/oauth-authorization-server`);
  const e = await failureOf(() => fetchMetadata(fetch, url, "api"));
  expect(e.code).toBe("E_UNAUTHORIZED");
  expect(e.message).toBe(
    `MCP server 'api': OAuth metadata ${url.href} sent a response body over the 1 MiB limit; agentd stopped reading and closed the connection`,
  );
  expect(await peer.cutOff).toBeLessThan(SENT_AT_MOST);
});

test("an endless token answer: read to 1 MiB before oauth4webapi sees it", async () => {
  peer = startHostilePeer(endless);
  const e = await failureOf(() => grant(peer!.url));
  expect(e.message).toContain(`token endpoint ${peer.url}/token sent a response body over the 1 MiB limit`);
  expect(await peer.cutOff).toBeLessThan(SENT_AT_MOST);
});

test("a token request redirected to another origin: the secret stays home, both origins named", async () => {
  pair = startRedirectPair(307);
  const e = await failureOf(() => grant(pair!.from));
  expect(pair.received).toEqual([]);
  expect(e.message).toContain(`to another origin (${pair.to}, from ${pair.from})`);
  expect(e.message).not.toContain(SECRET);
});
