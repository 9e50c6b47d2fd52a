/**
 * TLS, bearer and mutual-TLS authentication, and the refusal of unsafe binds. Certificates are made at test
 * time with `openssl` in a temporary directory that is removed afterwards.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentdError } from "../../wire/errors.ts";
import { callTool, createResponder, initializeRequest, openSession, post, SseReader } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer, type StreamableHttpServerOptions } from "./index.ts";

let dir = "";
const pem = (name: string) => readFileSync(join(dir, name), "utf8");

function openssl(...args: string[]): void {
  const r = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
}

function makeCa(name: string): void {
  openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.pem`,
    "-days",
    "1",
    "-subj",
    `/CN=${name}`,
  );
}

function makeCert(name: string, subject: string, ca: string, ext?: string): void {
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject);
  const extArgs = ext ? ["-extfile", ext] : [];
  openssl(
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    `${ca}.pem`,
    "-CAkey",
    `${ca}.key`,
    "-CAcreateserial",
    "-out",
    `${name}.pem`,
    "-days",
    "1",
    ...extArgs,
  );
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "agentd-tls-"));
  writeFileSync(join(dir, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  makeCa("ca");
  makeCa("other-ca");
  makeCert("server", "/CN=localhost", "ca", "server.ext");
  makeCert("alice", "/CN=alice/O=agents", "ca");
  makeCert("bob", "/CN=bob/O=agents", "ca");
  makeCert("mallory", "/CN=alice/O=agents", "other-ca");
}, 60_000); // six RSA key generations: seconds each on a loaded 2-core machine
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Partial<StreamableHttpServerOptions>) {
  const responder = createResponder();
  const server = await createStreamableHttpServer({ onsession: responder.onsession, ...options });
  servers.push(server);
  return { server, url: server.url, responder };
}

const TOKEN_A = "tok-A-0123456789abcdef";
const TOKEN_B = "tok-B-fedcba9876543210";

describe("bearer tokens over TLS", () => {
  test("missing → 401 with a resource_metadata challenge, wrong → 401 invalid_token, right → 200", async () => {
    const { url } = await start({
      tls: { cert: pem("server.pem"), key: pem("server.key") },
      auth: { bearerTokens: [TOKEN_A, TOKEN_B], resourceMetadata: { authorizationServers: ["https://auth.example"] } },
    });
    expect(url.protocol).toBe("https:");
    const tls = { ca: pem("ca.pem") };
    const metadataUrl = `https://127.0.0.1:${url.port}/.well-known/oauth-protected-resource`;

    const missing = await post(url, initializeRequest(), {}, { tls } as RequestInit);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}"`);

    const wrong = await post(url, initializeRequest(), { authorization: "Bearer not-the-right-token" }, { tls } as RequestInit);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}", error="invalid_token"`);

    const right = await post(url, initializeRequest(), { authorization: `Bearer ${TOKEN_A}` }, { tls } as RequestInit);
    expect(right.status).toBe(200);
    await right.body?.cancel();

    const md = await fetch(metadataUrl, { tls } as RequestInit);
    expect(await md.json()).toEqual({
      resource: url.href,
      authorization_servers: ["https://auth.example"],
      bearer_methods_supported: ["header"],
    });
    expect((await fetch(`${metadataUrl}/mcp`, { tls } as RequestInit)).status).toBe(200);
  });

  test("a session is bound to the token that created it; every request is authenticated", async () => {
    const { url, responder } = await start({
      tls: { cert: pem("server.pem"), key: pem("server.key") },
      auth: { bearerTokens: [TOKEN_A, TOKEN_B] },
    });
    const init = { tls: { ca: pem("ca.pem") } } as RequestInit;
    const res = await post(url, initializeRequest(), { authorization: `Bearer ${TOKEN_A}` }, init);
    const sessionId = res.headers.get("mcp-session-id")!;
    await new SseReader(res).rest();

    const asB = await post(url, callTool(1, "echo"), { "mcp-session-id": sessionId, authorization: `Bearer ${TOKEN_B}` }, init);
    expect(asB.status).toBe(404);
    const noToken = await post(url, callTool(2, "echo"), { "mcp-session-id": sessionId }, init);
    expect(noToken.status).toBe(401);
    const asA = await post(url, callTool(3, "echo"), { "mcp-session-id": sessionId, authorization: `Bearer ${TOKEN_A}` }, init);
    expect((await new SseReader(asA).nextMessage())?.message).toMatchObject({ id: 3 });

    const extra = responder.sessions[0]!.received.at(-1)!.extra!;
    expect(extra.authInfo).toEqual({ principal: "bearer#0", scheme: "bearer" });
    expect(extra.headers?.authorization).toBeUndefined();
  });
});

describe("mutual TLS", () => {
  const serverTls = () => ({ cert: join(dir, "server.pem"), key: join(dir, "server.key"), ca: join(dir, "ca.pem") });
  const clientTls = (who: string) => ({ tls: { cert: pem(`${who}.pem`), key: pem(`${who}.key`), ca: pem("ca.pem") } }) as RequestInit;

  test("no client cert or one from another CA fails the handshake; a good one gets 200 with its subject", async () => {
    const { url, responder } = await start({ tls: { ...serverTls(), requireClientCert: true }, auth: { mtls: true } });
    await expect(post(url, initializeRequest(), {}, { tls: { ca: pem("ca.pem") } } as RequestInit)).rejects.toThrow();
    await expect(post(url, initializeRequest(), {}, clientTls("mallory"))).rejects.toThrow();

    const s = await openSession(url, {}, "2025-11-25", clientTls("alice"));
    const res = await post(url, callTool(1, "echo", "mtls"), s.headers, clientTls("alice"));
    expect((await new SseReader(res).nextMessage())?.message).toMatchObject({ id: 1, result: { content: [{ text: "mtls" }] } });
    expect(responder.sessions[0]!.received.at(-1)!.extra?.authInfo).toEqual({ principal: "O=agents,CN=alice", scheme: "mtls" });

    // Another valid certificate is another principal: alice's session id means nothing to bob.
    expect((await post(url, callTool(2, "echo"), s.headers, clientTls("bob"))).status).toBe(404);
  });

  test("mTLS together with bearer tokens requires both", async () => {
    const { url } = await start({ tls: serverTls(), auth: { mtls: true, bearerTokens: [TOKEN_A] } });
    expect((await post(url, initializeRequest(), {}, clientTls("alice"))).status).toBe(401);
    const ok = await post(url, initializeRequest(), { authorization: `Bearer ${TOKEN_A}` }, clientTls("alice"));
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
  });
});

describe("unsafe configurations are refused", () => {
  const refused = async (options: Partial<StreamableHttpServerOptions>, text: RegExp) => {
    const attempt = createStreamableHttpServer({ onsession: () => {}, ...options });
    const e = await attempt.then(
      (s) => {
        servers.push(s);
        return undefined;
      },
      (err: unknown) => err,
    );
    expect(AgentdError.isInstance(e)).toBe(true);
    expect((e as AgentdError).code).toBe("E_CONFIG_INVALID");
    expect((e as AgentdError).message).toMatch(text);
  };

  test("a non-loopback bind without TLS and auth", async () => {
    await refused({ hostname: "0.0.0.0" }, /refusing to bind 0\.0\.0\.0/);
    await refused({ hostname: "192.0.2.10", auth: { bearerTokens: [TOKEN_A] } }, /needs TLS/);
    await refused({ hostname: "::", tls: { cert: pem("server.pem"), key: pem("server.key") } }, /auth/);
  });

  test("malformed TLS and auth settings", async () => {
    await refused({ tls: { cert: join(dir, "missing.pem"), key: pem("server.key") } }, /cannot read tls\.cert/);
    await refused({ auth: { mtls: true } }, /mutual TLS needs/);
    await refused({ tls: { cert: pem("server.pem"), key: pem("server.key"), requireClientCert: true } }, /tls\.ca/);
    await refused({ auth: { bearerTokens: ["short"] } }, /shorter than 16/);
    await refused({ auth: { bearerTokens: ["has spaces in it, quite long"] } }, /bearerTokens\[0\]/);
    await refused({ limits: { maxSessions: 0 } }, /limits\.maxSessions/);
  });
});
