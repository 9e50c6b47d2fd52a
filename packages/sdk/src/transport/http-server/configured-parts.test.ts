/**
 * The parts of the server only some configurations use — the trust of a proxy in front (`behind-proxy.ts`,
 * `proxy-ranges.ts`, `forwarded-*.ts`) and the bearer check (`bearer-auth.ts` with the JWT, introspection
 * and issuer-link modules) — are loaded at the server's creation when configured, and not at all otherwise:
 * every idle server kept them in memory, about 1 MB of resident memory (bench/NOTES.md, idle sessions).
 *
 * Checked in server processes of their own (what a process has loaded is only visible from inside it):
 * without a proxy or auth, after serving a session, none of them is loaded; with them configured they are
 * loaded before the first request, and they work. A mistake in them is still refused by
 * `createStreamableHttpServer`, not at the first request.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { jsonLines } from "@agentd/test-support/json-lines";
import { initializeRequest, post } from "@agentd/test-support/raw-mcp-http";
import { TOKEN } from "./__fixtures__/configured-parts-server.ts";
import { createStreamableHttpServer } from "./server.ts";

/** The modules of the configured parts. */
const PROXY = ["behind-proxy.ts", "proxy-ranges.ts", "forwarded-list.ts", "forwarded-client-cert.ts"];
const BEARER = ["bearer-auth.ts", "jwt-verifier.ts", "introspection.ts", "issuer-link.ts", "oauth-grant.ts"];

const started: Bun.Subprocess<"pipe", "pipe", "inherit">[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) {
    child.stdin.end();
    if (child.exitCode === null && child.signalCode === null) await child.exited;
  }
});

/** A server process configured as `mode`, its URL, and a way to ask which of the configured parts it has loaded. */
async function serverProcess(mode: string): Promise<{ url: string; loaded(): Promise<string[]> }> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "__fixtures__", "configured-parts-server.ts"), mode], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  started.push(child);
  const out = jsonLines(child.stdout);
  const { url } = (await out.next()).value as { url: string };
  const parts = new Set([...PROXY, ...BEARER].map((m) => `transport/http-server/${m}`));
  return {
    url,
    async loaded() {
      child.stdin.write("modules\n");
      child.stdin.flush();
      const { modules } = (await out.next()).value as { modules: string[] };
      return modules
        .filter((m) => parts.has(m))
        .map((m) => m.slice("transport/http-server/".length))
        .sort();
    },
  };
}

test("a server without a proxy or auth serves a session without loading the proxy trust or the bearer check", async () => {
  const server = await serverProcess("plain");
  const res = await post(server.url, initializeRequest());
  expect(res.status).toBe(200);
  expect(((await res.json()) as { result?: unknown }).result).toBeDefined();
  expect(await server.loaded()).toEqual([]);
});

test("with a trusted proxy and a bearer token both are loaded at creation, and they work", async () => {
  const server = await serverProcess("proxy-bearer");
  expect(await server.loaded()).toEqual([...PROXY, ...BEARER].sort());
  // The bearer check refuses a request without the token; the proxy's forwarded origin names the challenge's metadata.
  const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "mcp.example.com" };
  const refused = await post(server.url, initializeRequest(), forwarded);
  await refused.body?.cancel();
  expect(refused.status).toBe(401);
  expect(refused.headers.get("www-authenticate")).toBe(
    'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"',
  );
  const wrong = await post(server.url, initializeRequest(), { authorization: "Bearer not-the-token-0123456789" });
  await wrong.body?.cancel();
  expect(wrong.status).toBe(401);
  // A malformed Forwarded header from the trusted proxy refuses the request.
  const malformed = await post(server.url, initializeRequest(), { authorization: `Bearer ${TOKEN}`, forwarded: "proto=https;proto=http" });
  await malformed.body?.cancel();
  expect(malformed.status).toBe(400);
  const ok = await post(server.url, initializeRequest(), { authorization: `Bearer ${TOKEN}` });
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as { result?: unknown }).result).toBeDefined();
});

test("with an OAuth issuer the bearer check is loaded at creation and refuses a token it cannot verify", async () => {
  const server = await serverProcess("jwt");
  expect(await server.loaded()).toEqual(BEARER.toSorted());
  const res = await post(server.url, initializeRequest(), { authorization: "Bearer opaque-token-0123456789" });
  await res.body?.cancel();
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
});

test("a bad proxy range or a bad issuer is refused by createStreamableHttpServer", async () => {
  const onsession = () => {};
  await expect(createStreamableHttpServer({ onsession, behindProxy: { trustedProxies: ["10.0.0.0/99"] } })).rejects.toThrow(
    'behindProxy.trustedProxies[0] "10.0.0.0/99" is not an IP address or CIDR range',
  );
  await expect(createStreamableHttpServer({ onsession, auth: { jwt: [{ issuer: "http://issuer.example.com" }] } })).rejects.toThrow(
    "auth.jwt[0].issuer must be an https:// URL",
  );
});
