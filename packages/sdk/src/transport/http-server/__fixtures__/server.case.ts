/**
 * The server case suite: the same cases over real loopback HTTP against whatever `start` serves with — the
 * Bun adapter, the Node adapter under Bun, or the built SDK under Node itself. Sessions, the SSE stream and
 * its resumption, JSON mode, media-type, Origin and Host checks, body limits and deadlines, a head that stops
 * arriving, a peer that stops reading, a peer that leaves, trusting a proxy by its peer address, TLS with
 * bearer tokens, and mutual TLS.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CaseOptions, CaseServer, StartCaseServer } from "./case-server.ts";
import { callTool, initializeRequest, openSession, POST_HEADERS, post, SseReader } from "./http-harness.ts";
import { trickle, type Trickle } from "./trickle-client.ts";

const TOKEN = "case-token-0123456789abcdef";

/** Register the cases under `name`, each starting its server with `start`. */
export function runServerCases(name: string, start: StartCaseServer): void {
  describe(name, () => {
    const servers: CaseServer[] = [];
    const trickles: Trickle[] = [];
    const sockets: net.Socket[] = [];
    afterEach(async () => {
      for (const t of trickles.splice(0)) t.stop();
      for (const s of sockets.splice(0)) s.destroy();
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });
    const serve = async (o: CaseOptions = {}) => {
      const s = await start(o);
      servers.push(s);
      return s.url;
    };
    const call = async (url: URL, headers: Record<string, string>, id: number, tool: string, text = "", init: RequestInit = {}) => {
      const res = await post(url, callTool(id, tool, text), headers, init);
      if (res.headers.get("content-type")?.startsWith("application/json")) return (await res.json()) as Record<string, any>;
      return (await new SseReader(res).nextMessage())?.message;
    };
    const textOf = (m: Record<string, any> | undefined) => m?.result?.content?.[0]?.text as string | undefined;
    const getStream = (url: URL, headers: Record<string, string>, extra: Record<string, string> = {}) =>
      fetch(url, { headers: { ...headers, accept: "text/event-stream", ...extra } });

    test("a session: initialize, a tool call answered on an SSE stream, DELETE ends it (404 after)", async () => {
      const url = await serve();
      const s = await openSession(url);
      expect(s.sessionId).toMatch(/^[\x21-\x7e]{16,}$/);
      const res = await post(url, callTool(1, "echo", "over sse"), s.headers);
      expect(res.headers.get("content-type")).toStartWith("text/event-stream");
      expect((await new SseReader(res).nextMessage())?.message).toMatchObject({ id: 1, result: { content: [{ text: "over sse" }] } });
      expect((await fetch(url, { method: "DELETE", headers: s.headers })).status).toBe(204);
      expect((await post(url, callTool(2, "echo"), s.headers)).status).toBe(404);
    });

    test("JSON response mode answers one application/json body", async () => {
      const url = await serve({ responseMode: "json" });
      const s = await openSession(url);
      const res = await post(url, callTool(1, "echo", "as json"), s.headers);
      expect(res.headers.get("content-type")).toStartWith("application/json");
      expect(await res.json()).toMatchObject({ id: 1, result: { content: [{ text: "as json" }] } });
    });

    test("406 without both media types, 415 for another body type, 400 with -32700 for bad JSON", async () => {
      const url = await serve();
      const s = await openSession(url);
      expect((await post(url, callTool(1, "echo"), { ...s.headers, accept: "application/json" })).status).toBe(406);
      expect((await post(url, callTool(1, "echo"), { ...s.headers, "content-type": "text/plain" })).status).toBe(415);
      const bad = await fetch(url, { method: "POST", headers: { ...POST_HEADERS, ...s.headers }, body: "{not json" });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: { code: -32700 } });
    });

    test("a foreign Origin and a rebinding Host get 403; a loopback origin passes", async () => {
      const url = await serve();
      expect((await post(url, initializeRequest(), { origin: "https://evil.example" })).status).toBe(403);
      expect((await post(url, initializeRequest(), { host: `rebind.example:${url.port}` })).status).toBe(403);
      expect((await post(url, initializeRequest(), { origin: `http://localhost:${url.port}` })).status).toBe(200);
    });

    test("an oversize body gets 413, declared or streamed, and the session keeps working", async () => {
      const url = await serve({ limits: { maxBodyBytes: 1024 } });
      const s = await openSession(url);
      const big = callTool(1, "echo", "x".repeat(4096));
      expect((await post(url, big, s.headers)).status).toBe(413);
      const chunks = [new TextEncoder().encode(JSON.stringify(big))];
      const body = new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) });
      expect((await fetch(url, { method: "POST", headers: { ...POST_HEADERS, ...s.headers }, body })).status).toBe(413);
      expect(textOf(await call(url, s.headers, 2, "echo", "still fine"))).toBe("still fine");
    });

    test("a body trickled a byte at a time gets 408 at the body deadline and its connection is closed", async () => {
      const url = await serve({ limits: { requestBodyTimeoutMs: 500 } });
      const s = await openSession(url);
      const t = trickle(Number(url.port), url.pathname, { ...POST_HEADERS, ...s.headers }, 1000, 50);
      trickles.push(t);
      const answer = await t.closed;
      expect(answer).toStartWith("HTTP/1.1 408");
      expect(t.sent()).toBeLessThan(1000);
      expect(textOf(await call(url, s.headers, 2, "echo", "still fine"))).toBe("still fine");
    }, 20_000);

    test("a request head that stops arriving is dropped, not held", async () => {
      // keepAliveMs 1000 gives the shortest idle timeout (10 s); the body deadline bounds the head under Node.
      const url = await serve({ limits: { keepAliveMs: 1000, requestBodyTimeoutMs: 500 } });
      const socket = net.connect(Number(url.port), "127.0.0.1");
      sockets.push(socket);
      socket.on("error", () => {});
      let received = "";
      socket.on("data", (d) => (received += d.toString("latin1")));
      socket.on("connect", () => socket.write(`POST ${url.pathname} HTTP/1.1\r\nhost: 127.0.0.1:${url.port}\r\ncontent-type: appl`));
      await new Promise((resolve) => socket.on("close", resolve));
      expect(received).not.toMatch(/^HTTP\/1\.1 2/);
    }, 30_000);

    test("a broken GET stream resumes with Last-Event-ID: exactly the missed events, in order", async () => {
      const url = await serve();
      const s = await openSession(url);
      const first = new SseReader(await getStream(url, s.headers));
      expect(textOf(await call(url, s.headers, 1, "notify", "3"))).toBe("sent 3");
      const one = await first.nextMessage();
      expect(one?.message.params.data).toBe(1);
      await first.response.body?.cancel().catch(() => {});
      // The server learns of the break asynchronously: until then a second GET is refused with 409.
      let resumed: Response | undefined;
      for (let i = 0; i < 200 && !resumed; i++) {
        const res = await getStream(url, s.headers, { "last-event-id": one!.id! });
        if (res.status === 200) resumed = res;
        else {
          expect(res.status).toBe(409);
          await res.body?.cancel();
          await new Promise((r) => setTimeout(r, 25));
        }
      }
      const again = new SseReader(resumed!);
      expect((await again.nextMessage())?.message.params.data).toBe(2);
      expect((await again.nextMessage())?.message.params.data).toBe(3);
      await resumed!.body?.cancel().catch(() => {});
    });

    test("a peer that stops reading its GET stream is cut off past maxBufferedBytes; others carry on", async () => {
      const url = await serve({ limits: { maxBufferedBytes: 1 << 20, eventStoreEvents: 4 } });
      const stalled = await openSession(url);
      const other = await openSession(url);
      const res = await getStream(url, stalled.headers); // never read
      expect(res.status).toBe(200);
      expect(JSON.parse(textOf(await call(url, stalled.headers, 1, "flood"))!)).toMatchObject({ cut: true });
      expect(textOf(await call(url, other.headers, 2, "echo", "unaffected"))).toBe("unaffected");
      await res.body?.cancel().catch(() => {});
    }, 30_000);

    test("forwarded headers are believed from a trusted proxy's address only (the socket's peer address decides)", async () => {
      const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "agents.example.com" };
      const challengeOf = async (url: URL) => (await post(url, initializeRequest(), forwarded)).headers.get("www-authenticate") ?? "";
      const trusted = await serve({ auth: { bearerTokens: [TOKEN] }, behindProxy: { trustedProxies: ["127.0.0.1"] } });
      expect(await challengeOf(trusted)).toContain('resource_metadata="https://agents.example.com/.well-known/oauth-protected-resource"');
      const other = await serve({ auth: { bearerTokens: [TOKEN] }, behindProxy: { trustedProxies: ["10.0.0.0/8"] } });
      expect(await challengeOf(other)).toContain(`resource_metadata="http://127.0.0.1:${other.port}/.well-known/oauth-protected-resource"`);
    });

    describe("over TLS", () => {
      let dir = "";
      const pem = (f: string) => readFileSync(join(dir, f), "utf8");
      beforeAll(() => {
        dir = mkdtempSync(join(tmpdir(), "agentd-case-tls-"));
        makeTlsFiles(dir);
      }, 60_000);
      afterAll(() => {
        if (dir) rmSync(dir, { recursive: true, force: true });
      });
      const serverTls = () => ({ cert: pem("server.pem"), key: pem("server.key"), ca: pem("ca.pem") });
      const clientTls = (who?: string) =>
        ({ tls: { ca: pem("ca.pem"), ...(who ? { cert: pem(`${who}.pem`), key: pem(`${who}.key`) } : {}) } }) as RequestInit;

      test("bearer tokens over TLS: missing → 401, right → 200 and the session works", async () => {
        const url = await serve({ tls: serverTls(), auth: { bearerTokens: [TOKEN] } });
        expect(url.protocol).toBe("https:");
        expect((await post(url, initializeRequest(), {}, clientTls())).status).toBe(401);
        const s = await openSession(url, { authorization: `Bearer ${TOKEN}` }, "2025-11-25", clientTls());
        expect(textOf(await call(url, s.headers, 1, "whoami", "", clientTls()))).toBe(
          JSON.stringify({ principal: "bearer#0", scheme: "bearer" }),
        );
      });

      test("mutual TLS: no certificate or another CA's fails; a good one is its subject's principal", async () => {
        const url = await serve({ tls: serverTls(), auth: { mtls: true } });
        await expect(post(url, initializeRequest(), {}, clientTls())).rejects.toThrow();
        await expect(post(url, initializeRequest(), {}, clientTls("mallory"))).rejects.toThrow();
        const s = await openSession(url, {}, "2025-11-25", clientTls("alice"));
        expect(textOf(await call(url, s.headers, 1, "whoami", "", clientTls("alice")))).toBe(
          JSON.stringify({ principal: "O=agents,CN=alice", scheme: "mtls" }),
        );
        // Another valid certificate is another principal: alice's session id means nothing to bob.
        expect((await post(url, callTool(2, "echo"), s.headers, clientTls("bob"))).status).toBe(404);
      });
    });
  });
}

/** A CA, another CA, a server certificate for 127.0.0.1 and client certificates (P-256 keys: quick to make). */
function makeTlsFiles(dir: string): void {
  const openssl = (...args: string[]) => {
    const r = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
  };
  const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  const ca = (name: string) =>
    openssl("req", "-x509", ...key, "-keyout", `${name}.key`, "-out", `${name}.pem`, "-days", "1", "-subj", `/CN=${name}`);
  const cert = (name: string, subject: string, signer: string, ext?: string) => {
    openssl("req", ...key, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject);
    openssl(
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      `${signer}.pem`,
      "-CAkey",
      `${signer}.key`,
      "-CAcreateserial",
      "-out",
      `${name}.pem`,
      "-days",
      "1",
      ...(ext ? ["-extfile", ext] : []),
    );
  };
  writeFileSync(join(dir, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  ca("ca");
  ca("other-ca");
  cert("server", "/CN=localhost", "ca", "server.ext");
  cert("alice", "/CN=alice/O=agents", "ca");
  cert("bob", "/CN=bob/O=agents", "ca");
  cert("mallory", "/CN=alice/O=agents", "other-ca");
}
