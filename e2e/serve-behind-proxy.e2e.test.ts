/**
 * `agentd serve --behind-proxy`: TLS terminated by a proxy in front (an ingress, a mesh sidecar), through a
 * real process on 127.0.0.1. From a configured proxy address the forwarded scheme and host are the public URL
 * of the RFC 9728 metadata, the 401 challenge and the A2A card, and a mesh's forwarded client certificate
 * authenticates; the same headers from an address that is not a configured proxy (the process trusts only
 * 127.0.0.2 while the test connects from 127.0.0.1) are ignored. Authentication is still required. Without
 * the mode, a non-loopback address without TLS is refused as before. Both headers are read strictly: a client's
 * text that leaves a quote open before the element the proxy appends is a malformed header and a 400, never an
 * identity or a public URL; a proxy range that holds every address is refused with forwarded certificates.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";

let ws: CliWorkspace | undefined;
afterEach(async () => {
  await stopAllServe();
  ws?.cleanup();
  ws = undefined;
}, 30_000);

const TOKEN = "proxy-test-token-0123456789abcdef";
const PUBLIC = { "x-forwarded-proto": "https", "x-forwarded-host": "agents.example.com" };
const RFC7239 = { forwarded: 'for=198.51.100.7;proto=https;host="agents.example.com"' };
const XFCC = {
  "x-forwarded-client-cert":
    'By=spiffe://cluster.local/ns/agents/sa/agentd;Hash=0a1b2c;Subject="CN=alice,O=ops";URI=spiffe://cluster.local/ns/agents/sa/caller',
};
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "proxy-test", version: "1" } },
};

function workspace(): { tokens: string; config: string } {
  ws = new CliWorkspace();
  const tokens = join(ws.dir, "tokens");
  writeFileSync(tokens, `${TOKEN}\n`);
  return { tokens, config: ws.writeConfig({}) };
}

const initialize = (url: URL, headers: Record<string, string>) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(INITIALIZE),
  });
const metadata = async (url: URL, headers: Record<string, string>) =>
  (await (await fetch(new URL("/.well-known/oauth-protected-resource", url), { headers })).json()) as { resource: string };
const cardUrls = async (url: URL, headers: Record<string, string>) =>
  (
    (await (await fetch(new URL("/.well-known/agent-card.json", url), { headers: { "a2a-version": "1.0", ...headers } })).json()) as {
      supportedInterfaces: { url: string }[];
    }
  ).supportedInterfaces.map((i) => i.url);

describe("agentd serve behind a proxy that terminates TLS", () => {
  test("from a configured proxy: forwarded scheme and host make the public URL of the metadata, the challenge and the A2A card; auth still required", async () => {
    const { tokens, config } = workspace();
    const serve = await startServe([
      "--http",
      "127.0.0.1:0",
      "--behind-proxy",
      "127.0.0.1",
      "--auth-tokens",
      tokens,
      "--a2a",
      "--config",
      config,
    ]);
    expect(serve.events().find((e) => e.event === "serve.listening")).toMatchObject({ behindProxy: ["127.0.0.1"], authMethod: "bearer" });

    expect((await metadata(serve.url, PUBLIC)).resource).toBe("https://agents.example.com/mcp");
    expect((await metadata(serve.url, RFC7239)).resource).toBe("https://agents.example.com/mcp");
    expect(await cardUrls(serve.url, RFC7239)).toContain("https://agents.example.com/a2a");
    // Without forwarded headers: the bound URL, as before.
    expect((await metadata(serve.url, {})).resource).toBe(serve.url.href);
    // The client's text ends in an open quote and the proxy appends its element: refused, never evil.example.
    const smuggled = { forwarded: 'host=evil.example;proto=https;for=", for=198.51.100.7;proto=https;host="agents.example.com"' };
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/agent-card.json"]) {
      const res = await fetch(new URL(path, serve.url), { headers: { "a2a-version": "1.0", ...smuggled } });
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).toContain("Bad Request: malformed Forwarded header: ");
      expect(text).not.toContain("evil.example");
    }

    const refused = await initialize(serve.url, PUBLIC);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain(
      'resource_metadata="https://agents.example.com/.well-known/oauth-protected-resource"',
    );
    // A forwarded client certificate is not believed unless asked for: still 401 without the token.
    expect((await initialize(serve.url, { ...PUBLIC, ...XFCC })).status).toBe(401);
    const accepted = await initialize(serve.url, { ...PUBLIC, authorization: `Bearer ${TOKEN}` });
    expect(accepted.status).toBe(200);
    await accepted.body?.cancel();
  }, 60_000);

  test("the same headers from an address that is not a configured proxy are ignored", async () => {
    const { tokens, config } = workspace();
    const serve = await startServe([
      "--http",
      "127.0.0.1:0",
      "--behind-proxy",
      "127.0.0.2/32",
      "--auth-tokens",
      tokens,
      "--a2a",
      "--config",
      config,
    ]);
    expect((await metadata(serve.url, PUBLIC)).resource).toBe(serve.url.href);
    expect((await metadata(serve.url, RFC7239)).resource).toBe(serve.url.href);
    expect(await cardUrls(serve.url, RFC7239)).toContain(`${serve.url.origin}/a2a`);
    expect(await cardUrls(serve.url, RFC7239)).not.toContain("https://agents.example.com/a2a");
    const refused = await initialize(serve.url, PUBLIC);
    expect(refused.headers.get("www-authenticate")).toContain(
      `resource_metadata="${serve.url.origin}/.well-known/oauth-protected-resource"`,
    );
  }, 60_000);

  test("a mesh's forwarded client certificate authenticates from a configured proxy only", async () => {
    workspace();
    // In the file: --operators splits on commas, and this subject holds one.
    const config = ws!.writeConfig({ serve: { operators: ["mtls:CN=alice,O=ops"] } });
    const trusted = await startServe([
      "--http",
      "127.0.0.1:0",
      "--behind-proxy",
      "127.0.0.0/8",
      "--forwarded-client-cert",
      "--a2a",
      "--config",
      config,
    ]);
    expect((await initialize(trusted.url, {})).status).toBe(401);
    const ok = await initialize(trusted.url, XFCC);
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    // The certificate's subject is the principal: alice is the configured operator, bob is not.
    const status = async (xfcc: string) =>
      (await (
        await fetch(new URL("/a2a", trusted.url), {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": "1.0", "x-forwarded-client-cert": xfcc },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "agentd/status", params: {} }),
        })
      ).json()) as { result?: unknown; error?: { message: string } };
    const alice = await status(XFCC["x-forwarded-client-cert"]);
    expect(alice.error).toBeUndefined();
    expect(alice.result).toBeDefined();
    const bob = await status('Hash=1;Subject="CN=bob,O=ops"');
    expect(bob.error?.message).toContain("(mtls:CN=bob,O=ops)");

    const untrusted = await startServe([
      "--http",
      "127.0.0.1:0",
      "--behind-proxy",
      "127.0.0.2",
      "--forwarded-client-cert",
      "--config",
      config,
    ]);
    const ignored = await initialize(untrusted.url, XFCC);
    expect(ignored.status).toBe(401);
    expect(await ignored.text()).toContain("client certificate required");
  }, 60_000);

  test("a client's element ending in an open quote or repeating a key cannot swallow the proxy's: 400, no operator, no drain", async () => {
    workspace();
    const config = ws!.writeConfig({ serve: { operators: ["mtls:CN=admin"] } });
    const serve = await startServe([
      "--http",
      "127.0.0.1:0",
      "--behind-proxy",
      "127.0.0.0/8",
      "--forwarded-client-cert",
      "--console",
      "--config",
      config,
    ]);
    // What an Istio sidecar appends (Envoy APPEND_FORWARD) after whatever the client sent.
    const proxy = 'By=spiffe://cluster.local/ns/agents/sa/agentd;Hash=0a1b2c;Subject="";URI=spiffe://cluster.local/ns/agents/sa/caller';
    const console = (path: string, xfcc: string, init: RequestInit = {}) =>
      fetch(new URL(path, serve.url), { ...init, headers: { "content-type": "application/json", "x-forwarded-client-cert": xfcc } });
    for (const client of ['Subject=CN=admin;URI=",', 'Subject="CN=admin";Subject="']) {
      const snapshot = await console("/console/api/snapshot", `${client},${proxy}`);
      expect(snapshot.status).toBe(400);
      expect(snapshot.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect(await snapshot.text()).toContain("malformed X-Forwarded-Client-Cert header");
      const drain = await console("/console/api/drain", `${client},${proxy}`, { method: "POST", body: "{}" });
      expect(drain.status).toBe(400);
      await drain.arrayBuffer();
    }
    // The proxy's own element names the caller; the server is not draining.
    const own = await console("/console/api/snapshot", proxy);
    expect(own.status).toBe(200);
    const seen = (await own.json()) as { principal: { id: string; role: string }; overview: { state: string } };
    expect(seen.principal).toEqual({ id: "mtls:spiffe://cluster.local/ns/agents/sa/caller", role: "user" });
    expect(seen.overview.state).toBe("running");
  }, 60_000);

  test("a proxy range that holds every address is refused with --forwarded-client-cert, by flag and in the file", async () => {
    const { config } = workspace();
    for (const open of ["0.0.0.0/0", "::/0", "::ffff:0:0/96", "0.0.0.0/1,128.0.0.0/1"]) {
      // Loopback: the refusal does not depend on the address, and a test binds nothing else.
      const run = await ws!.run(["serve", "--http", "127.0.0.1:0", "--behind-proxy", open, "--forwarded-client-cert", "--config", config]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`refusing --behind-proxy ${open} with --forwarded-client-cert: it holds every IPv`);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
    const inFile = ws!.writeConfig({
      serve: { http: "127.0.0.1:0", behindProxy: { trustedProxies: ["0.0.0.0/0"], forwardedClientCert: true } },
    });
    const run = await ws!.run(["serve", "--config", inFile]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("it holds every IPv4 address, so any client could name its own certificate");
  }, 60_000);

  test("off loopback without TLS: refused without the mode, and refused with it but without auth", async () => {
    const { tokens, config } = workspace();
    const without = await ws!.run(["serve", "--http", "0.0.0.0:0", "--auth-tokens", tokens, "--config", config]);
    expect(without.code).toBe(2);
    expect(without.stderr).toContain("refusing to serve on 0.0.0.0 without TLS and auth");
    expect(without.stderr).toContain("--behind-proxy");
    const noAuth = await ws!.run(["serve", "--http", "0.0.0.0:0", "--behind-proxy", "10.0.0.0/8", "--config", config]);
    expect(noAuth.code).toBe(2);
    expect(noAuth.stderr).toContain("behind a proxy without auth");
    // A bad address is named, not taken for a missing auth method.
    const badNoAuth = await ws!.run(["serve", "--http", "0.0.0.0:0", "--behind-proxy", "10.0.0.0/33", "--config", config]);
    expect(badNoAuth.code).toBe(2);
    expect(badNoAuth.stderr).toContain('"10.0.0.0/33" is not an IP address or CIDR range');
    expect(badNoAuth.stderr).not.toContain("without auth");
    const badRange = await ws!.run([
      "serve",
      "--http",
      "127.0.0.1:0",
      "--behind-proxy",
      "10.0.0.0/33",
      "--auth-tokens",
      tokens,
      "--config",
      config,
    ]);
    expect(badRange.code).toBe(2);
    expect(badRange.stderr).toContain('"10.0.0.0/33" is not an IP address or CIDR range');
    for (const run of [without, noAuth, badNoAuth, badRange]) expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
