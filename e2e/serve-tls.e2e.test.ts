/**
 * `agentd serve --http` hardening, through the real CLI process: HTTPS with bearer tokens from a file, mutual
 * TLS, the refusal of unsafe binds (exit 2, one line), and the /healthz and /readyz probes. Certificates come
 * from a CA made at test time (openssl); the temp dir is removed afterwards.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { initializeRequest, post, SseReader } from "@agentd/test-support/raw-mcp-http";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";
import { makeTestPki, type TestPki } from "./__fixtures__/serve/test-pki.ts";

const TOKEN_A = "tok-A-serve-proof-0123456789";
const TOKEN_B = "tok-B-serve-proof-9876543210";

let pki: TestPki;
let ws: CliWorkspace;
let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
beforeAll(() => {
  pki = makeTestPki();
  ws = new CliWorkspace();
}, 60_000);
afterAll(() => {
  pki?.remove();
  ws?.cleanup();
});
afterEach(async () => {
  await stopAllServe();
  await world?.close();
  world = undefined;
}, 30_000);

const tlsArgs = () => ["--tls-cert", pki.path("server.pem"), "--tls-key", pki.path("server.key")];
const trustCa = () => ({ tls: { ca: pki.pem("ca.pem") } });
const asClient = (who: string) => ({ tls: { ca: pki.pem("ca.pem"), cert: pki.pem(`${who}.pem`), key: pki.pem(`${who}.key`) } });

/** stderr lines that are not telemetry: what a person sees. */
const humanLines = (stderr: string) => stderr.split("\n").filter((l) => l && !l.startsWith("{"));

describe("HTTPS with bearer tokens (--auth-tokens FILE)", () => {
  test("missing → 401 with a resource_metadata challenge, wrong → 401 invalid_token, right → 200; probes stay open", async () => {
    const tokens = join(ws.dir, "tokens.txt");
    writeFileSync(tokens, `# agentd serve tokens, one a line\n\n${TOKEN_A}\n   ${TOKEN_B}   \n`);
    const serve = await startServe(["--http", "127.0.0.1:0", ...tlsArgs(), "--auth-tokens", tokens, "--grace", "1s"]);
    expect(serve.url.protocol).toBe("https:");
    expect(serve.events().find((e) => e.event === "serve.listening")).toMatchObject({ tls: true, authMethod: "bearer" });
    const metadataUrl = `https://127.0.0.1:${serve.url.port}/.well-known/oauth-protected-resource`;

    const missing = await post(serve.url, initializeRequest(), {}, trustCa());
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    const wrong = await post(serve.url, initializeRequest(), { authorization: "Bearer tok-not-the-right-one-000000" }, trustCa());
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}", error="invalid_token"`);
    const basic = await post(serve.url, initializeRequest(), { authorization: `Basic ${btoa(`x:${TOKEN_A}`)}` }, trustCa());
    expect(basic.status).toBe(401);

    const right = await post(serve.url, initializeRequest(), { authorization: `Bearer ${TOKEN_A}` }, trustCa());
    expect(right.status).toBe(200);
    const sessionId = right.headers.get("mcp-session-id")!;
    expect((await new SseReader(right).until(0))[0]!.message.result.serverInfo.name).toBe("agentd");
    // The second token (padded with spaces in the file) works too, but not for the first token's session.
    const other = await post(
      serve.url,
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { authorization: `Bearer ${TOKEN_B}`, "mcp-session-id": sessionId },
      trustCa(),
    );
    expect(other.status).toBe(404);
    const mine = await post(
      serve.url,
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { authorization: `Bearer ${TOKEN_A}`, "mcp-session-id": sessionId },
      trustCa(),
    );
    expect((await new SseReader(mine).until(2))[0]!.message).toEqual({ jsonrpc: "2.0", id: 2, result: {} });

    const md = await fetch(metadataUrl, trustCa());
    expect(await md.json()).toMatchObject({ resource: serve.url.href, bearer_methods_supported: ["header"] });
    expect((await fetch(new URL("/healthz", serve.url), trustCa())).status).toBe(200);
    const ready = await fetch(new URL("/readyz", serve.url), trustCa());
    expect(ready.status).toBe(503);
    expect(await ready.text()).toBe("model not configured\n");

    const stderr = JSON.stringify(serve.events());
    expect(stderr).not.toContain(TOKEN_A);
    expect(stderr).not.toContain(TOKEN_B);
  }, 30_000);

  test("a certificate the client does not trust fails the handshake", async () => {
    const tokens = join(ws.dir, "tokens-2.txt");
    writeFileSync(tokens, `${TOKEN_A}\n`);
    const serve = await startServe(["--http", "127.0.0.1:0", ...tlsArgs(), "--auth-tokens", tokens, "--grace", "1s"]);
    await expect(
      post(serve.url, initializeRequest(), { authorization: `Bearer ${TOKEN_A}` }, { tls: { ca: pki.pem("other-ca.pem") } }),
    ).rejects.toThrow();
  }, 30_000);
});

describe("mutual TLS (--tls-ca)", () => {
  test("no client certificate or one from another CA is refused; a good one is served", async () => {
    const serve = await startServe(["--http", "127.0.0.1:0", ...tlsArgs(), "--tls-ca", pki.path("ca.pem"), "--grace", "1s"]);
    expect(serve.events().find((e) => e.event === "serve.listening")).toMatchObject({ tls: true, authMethod: "mtls" });
    await expect(post(serve.url, initializeRequest(), {}, trustCa())).rejects.toThrow();
    await expect(post(serve.url, initializeRequest(), {}, asClient("mallory"))).rejects.toThrow();

    const ok = await post(serve.url, initializeRequest(), {}, asClient("alice"));
    expect(ok.status).toBe(200);
    expect((await new SseReader(ok).until(0))[0]!.message.result.serverInfo.name).toBe("agentd");
    // Probes go through the same TLS front: they need a client certificate as well.
    expect((await fetch(new URL("/healthz", serve.url), asClient("alice"))).status).toBe(200);
  }, 30_000);
});

describe("unsafe or malformed serve settings exit 2 with one clear line", () => {
  const refused = async (args: string[], text: RegExp, env: Record<string, string> = {}) => {
    const run = await ws.run(["serve", ...args], { env });
    expect(run.code).toBe(2);
    // One line says what is wrong; a usage mistake (E_USAGE) adds only the pointer to --help.
    const lines = humanLines(run.stderr).filter((l) => l !== "Run 'agentd serve --help' for usage.");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(text);
    expect(run.stderr).not.toContain("serve.listening");
  };

  test("a non-loopback bind without TLS and auth is refused before binding", async () => {
    // 192.0.2.1 (TEST-NET-1) is not an address of this machine: only the refusal can produce exit 2 here.
    await refused(["--http", "192.0.2.1:0"], /^agentd: refusing to serve on 192\.0\.2\.1 without TLS and auth: add --tls-cert/);
    const tokens = join(ws.dir, "tokens-3.txt");
    writeFileSync(tokens, `${TOKEN_A}\n`);
    await refused(["--http", "192.0.2.1:0", "--auth-tokens", tokens], /refusing to serve on 192\.0\.2\.1 without TLS and auth/);
    await refused(["--http", "192.0.2.1:0", ...tlsArgs()], /refusing to serve on 192\.0\.2\.1 without TLS and auth/);
    await refused(["--http", "[2001:db8::1]:0", ...tlsArgs()], /refusing to serve on 2001:db8::1/);
  }, 30_000);

  test("bad flags and files", async () => {
    const short = join(ws.dir, "short.txt");
    writeFileSync(short, "tooshort\n");
    await refused(["--http", "127.0.0.1:0", "--auth-tokens", short], /bearerTokens\[0\] is shorter than 16 characters/);
    await refused(["--http", "127.0.0.1:0", "--auth-tokens", join(ws.dir, "absent.txt")], /auth tokens file .* cannot be read/);
    await refused(["--http", "127.0.0.1:0", "--tls-cert", pki.path("server.pem")], /--tls-cert and --tls-key go together/);
    const run = await ws.run(["serve", "--http", "localhost"]);
    expect(run.code).toBe(2);
    expect(humanLines(run.stderr)[0]).toBe("agentd: --http expects HOST:PORT such as 127.0.0.1:7777, got 'localhost'");
    expect((await ws.run(["serve", "--http", "127.0.0.1:0", "--stdio"])).code).toBe(2);
    expect((await ws.run(["serve", "--http", "127.0.0.1:0", "--grace", "soon"])).code).toBe(2);
  }, 30_000);
});

describe("Origin and Host checks (DNS rebinding)", () => {
  const initialize = async (url: URL, headers: Record<string, string>) => {
    const res = await post(url, initializeRequest(), headers);
    await res.body?.cancel();
    return res.status;
  };

  test("defaults: loopback origins and the bound host only; --allowed-origin and --allowed-host replace them", async () => {
    const plain = await startServe(["--http", "127.0.0.1:0", "--grace", "1s"]);
    const port = plain.url.port;
    expect(await initialize(plain.url, {})).toBe(200); // no Origin: not a browser
    expect(await initialize(plain.url, { origin: `http://localhost:${port}` })).toBe(200);
    expect(await initialize(plain.url, { origin: "http://evil.example" })).toBe(403);
    expect(await initialize(plain.url, { origin: "null" })).toBe(403);
    expect(await initialize(plain.url, { host: `localhost:${port}` })).toBe(200);
    expect(await initialize(plain.url, { host: `evil.example:${port}` })).toBe(403);

    const listed = await startServe([
      "--http",
      "127.0.0.1:0",
      "--grace",
      "1s",
      "--allowed-origin",
      "https://console.example, https://ops.example",
      "--allowed-host",
      "agentd.internal",
    ]);
    const lport = listed.url.port;
    expect(await initialize(listed.url, { host: `agentd.internal:${lport}`, origin: "https://ops.example" })).toBe(200);
    expect(await initialize(listed.url, { host: `agentd.internal:${lport}`, origin: `http://localhost:${lport}` })).toBe(403);
    expect(await initialize(listed.url, { host: `127.0.0.1:${lport}` })).toBe(403);
    // The refusals are logged on the child's stderr, which may arrive after the responses: wait for them.
    await listed.waitForEvent((e) => e.event === "http.refused" && e.why === "host");
    expect(
      listed
        .events()
        .filter((e) => e.event === "http.refused")
        .map((e) => e.why),
    ).toEqual(["origin", "host"]);
  }, 30_000);
});

describe("/healthz and /readyz", () => {
  test("healthz 200 always; readyz 503 without a model, 200 with a model and its MCP servers connected", async () => {
    // Listening address from the config file's serve.http (no --http flag).
    const config = join(ws.dir, "serve-http.json");
    writeFileSync(config, JSON.stringify({ serve: { http: "127.0.0.1:0" } }));
    const bare = await startServe(["--config", config, "--grace", "1s"], { cwd: ws.dir });
    expect(bare.url.protocol).toBe("http:");
    expect((await fetch(new URL("/healthz", bare.url))).status).toBe(200);
    expect((await fetch(new URL("/readyz", bare.url))).status).toBe(503);

    world = await serveWorld([{ text: "unused" }]);
    const ready = await startServe(["--http", "127.0.0.1:0", "--config", world.config, "--grace", "1s"], {
      env: world.env,
      cwd: world.ws.dir,
    });
    const res = await fetch(new URL("/readyz", ready.url));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ready\n");
    expect(ready.events().some((e) => e.event === "mcp.connected" && e.server === "rec")).toBe(true);
  }, 30_000);

  test("readyz 503 while a required MCP server cannot be reached; healthz stays 200", async () => {
    world = await serveWorld([{ text: "unused" }]);
    const config = world.ws.writeConfig({ mcpServers: { gone: { command: join(world.ws.dir, "no-such-server") } } });
    const serve = await startServe(["--http", "127.0.0.1:0", "--config", config, "--grace", "1s"], { env: world.env, cwd: world.ws.dir });
    const res = await fetch(new URL("/readyz", serve.url));
    expect(res.status).toBe(503);
    expect(await res.text()).toStartWith("not ready:");
    expect((await fetch(new URL("/healthz", serve.url))).status).toBe(200);
  }, 30_000);
});
