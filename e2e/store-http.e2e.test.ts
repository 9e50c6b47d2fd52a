/**
 * `agentd store --http`: the store served over Streamable HTTP by a real process on 127.0.0.1 (an ephemeral
 * port), behind a bearer token. The store's case suite runs against it on both backends; a caller without
 * the token is refused; the official SDK client speaks to it; and two real agentd replicas whose config
 * points their run claims (and a subscription) at its URL run each change once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startFakeGateway, type FakeGateway, type RecordedRequest } from "@agentd/testkit";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { runStoreCases } from "@agentd/test-support/store.case";
import { McpClient } from "@agentd/sdk/mcp";
import { StreamableHttpClientTransport } from "@agentd/sdk/transport";
import { StoreClient } from "@agentd/sdk/store";
import { initializeRequest, post } from "@agentd/test-support/raw-mcp-http";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { makeTestPki } from "./__fixtures__/serve/test-pki.ts";
import { connectHttpStore, randomToken, startStoreProcess, type StoreProcess } from "./__fixtures__/store-process.ts";
import { startAgentd, stopAll } from "./__fixtures__/agentd-process.ts";
import { instructionOf, modelEnv, toolLike } from "./__fixtures__/scripts.ts";

let redis: RunningRedis | undefined;
beforeAll(async () => {
  if (redisServerPath) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** Case-suite options over a fresh store process per test; `backendArgs` gives each its own data. */
function served(backendArgs: () => string[], skip = false) {
  let current: StoreProcess | undefined;
  return {
    skip,
    async connect() {
      const proc = await startStoreProcess(backendArgs());
      current = proc;
      try {
        const c = await connectHttpStore(proc.url, proc.token);
        return { store: c.store, close: async () => (await c.close(), await proc.stop()) };
      } catch (e) {
        await proc.stop();
        throw e;
      }
    },
    async connectAgain() {
      const proc = current as StoreProcess;
      return connectHttpStore(proc.url, proc.token);
    },
  };
}

describe("the store case suite over HTTP, directory backend", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  runStoreCases(
    served(() => {
      const d = mkdtempSync(join(tmpdir(), "agentd-store-http-dir-"));
      dirs.push(d);
      return ["--dir", d];
    }),
  );
});

describe("the store case suite over HTTP, Redis backend", () => {
  let n = 0;
  runStoreCases(served(() => ["--redis", (redis as RunningRedis).url, "--redis-prefix", `http${++n}-${process.pid}:`], !redisServerPath));
});

describe("authentication and peers", () => {
  let proc: StoreProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-http-auth-"));
  afterEach(async () => {
    await proc?.stop();
    proc = undefined;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("a caller without the token, or with another, is refused (401); with it the store answers; /healthz needs none", async () => {
    proc = await startStoreProcess(["--dir", join(dir, "a")]);
    const init = (headers: Record<string, string>) =>
      fetch(proc?.url as string, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
        }),
      });
    const none = await init({});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await init({ authorization: `Bearer ${randomToken()}` })).status).toBe(401);
    const ok = await init({ authorization: `Bearer ${proc.token}` });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
    expect(await (await fetch(new URL("/healthz", proc.url))).text()).toBe("ok\n");
    // Our own client without the token cannot connect either.
    await expect(connectHttpStore(proc.url)).rejects.toThrow();
  });

  test("the official SDK client, with the token, uses the five tools", async () => {
    proc = await startStoreProcess(["--dir", join(dir, "b")]);
    const client = new Client({ name: "official", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(proc.url), { requestInit: { headers: { Authorization: `Bearer ${proc.token}` } } }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["compare_and_set", "delete", "get", "list", "put"]);
      expect(
        (await client.callTool({ name: "compare_and_set", arguments: { key: "k", expectedVersion: 0, value: 1 } })).structuredContent,
      ).toEqual({ key: "k", ok: true, version: 1 });
      expect((await client.callTool({ name: "get", arguments: { key: "k" } })).structuredContent).toEqual({
        key: "k",
        found: true,
        version: 1,
        value: 1,
      });
    } finally {
      await client.close();
    }
  });

  test("HTTPS with mutual TLS (--tls-ca): no client certificate, or one from another CA, is refused; a good one reads and writes", async () => {
    const pki = makeTestPki();
    try {
      proc = await startStoreProcess(
        [
          "--dir",
          join(dir, "m"),
          "--tls-cert",
          pki.path("server.pem"),
          "--tls-key",
          pki.path("server.key"),
          "--tls-ca",
          pki.path("ca.pem"),
        ],
        { auth: false },
      );
      expect(proc.url).toStartWith("https://127.0.0.1:");
      expect(proc.proc.named("store.listening")[0]).toMatchObject({ tls: true, authMethod: "mtls" });
      const as = (who?: string) => ({
        tls: { ca: pki.pem("ca.pem"), ...(who ? { cert: pki.pem(`${who}.pem`), key: pki.pem(`${who}.key`) } : {}) },
      });
      await expect(post(proc.url, initializeRequest(), {}, as())).rejects.toThrow();
      await expect(post(proc.url, initializeRequest(), {}, as("mallory"))).rejects.toThrow();
      const mcp = new McpClient({ name: "alice", version: "0" });
      const tlsFetch = ((url: string | URL | Request, init?: RequestInit) => fetch(url, { ...init, ...as("alice") })) as typeof fetch;
      await mcp.connect(new StreamableHttpClientTransport(proc.url, { fetch: tlsFetch }));
      try {
        const store = new StoreClient(mcp);
        expect(await store.put("over/mtls", { ok: true })).toBe(1);
        expect(await store.get("over/mtls")).toEqual({ key: "over/mtls", version: 1, value: { ok: true } });
      } finally {
        await mcp.close();
      }
    } finally {
      pki.remove();
    }
  }, 60_000);

  test("usage errors: HTTP flags without --http, a non-loopback address without TLS and auth — one line, exit 2", async () => {
    const ws = new CliWorkspace();
    try {
      const stray = await ws.run(["store", "--dir", join(dir, "c"), "--auth-tokens", "t.txt"]);
      expect(stray.code).toBe(2);
      expect(stray.stderr.split("\n")[0]).toBe("agentd: --auth-tokens applies to the HTTP listener: add --http HOST:PORT");
      // 192.0.2.1 (TEST-NET-1) is no address of this machine: only the refusal can exit 2 here, nothing binds.
      const open = await ws.run(["store", "--dir", join(dir, "c"), "--http", "192.0.2.1:0"]);
      expect(open.code).toBe(2);
      expect(open.stderr.split("\n")[0]).toBe(
        "agentd: refusing to serve on 192.0.2.1 without TLS and auth: add --tls-cert and --tls-key, and --auth-tokens FILE or --tls-ca (mTLS); or bind 127.0.0.1",
      );
      expect(open.stderr).not.toContain("    at ");
    } finally {
      ws.cleanup();
    }
  });
});

describe("run claims through an HTTP store", () => {
  let ws: CliWorkspace | undefined;
  let gateway: FakeGateway | undefined;
  let proc: StoreProcess | undefined;
  afterEach(async () => {
    await stopAll();
    await gateway?.close();
    await proc?.stop();
    ws?.cleanup();
    ws = gateway = proc = undefined;
  });

  test("two agentd replicas whose config names the store by URL and token: each change of a watched document runs once", async () => {
    ws = new CliWorkspace();
    proc = await startStoreProcess(["--dir", join(ws.dir, "store")]);
    const { url, token } = proc;
    const admin = await connectHttpStore(url, token);
    try {
      await admin.store.put("jobs/current", { job: 0 });
      // Each run writes results/job-N once: the document's version counts how often it was run.
      gateway = await startFakeGateway({
        dialect: "openai",
        onExhausted: "repeat-last",
        script: [
          (req: RecordedRequest) => {
            if (req.lastToolResult !== undefined) return { text: "done" };
            const job = /"job":(\d+)/.exec(instructionOf(req))?.[1];
            return { toolCalls: [{ name: toolLike(req, "put"), arguments: { key: `results/job-${job}`, value: { job: Number(job) } } }] };
          },
        ],
      });
      // The token reaches the config through the environment, never written into it.
      const store = { url, headers: { Authorization: "Bearer ${STORE_TOKEN}" } };
      const replicas = [0, 1].map((n) => {
        const config = join((ws as CliWorkspace).dir, `replica-${n}.json`);
        writeFileSync(
          config,
          JSON.stringify({
            mcpServers: { store },
            triggers: { subscriptions: [{ server: "store", uri: "store://doc/jobs/current", instruction: "Do: {{resource.text}}" }] },
            durability: { claims: { store, lease: "5s", holder: `replica-${n}` } },
            capabilities: { httpReactivity: true },
          }),
        );
        return startAgentd(["run", "--mode", "reactive", "--config", config, "--json"], {
          cwd: (ws as CliWorkspace).dir,
          env: { ...modelEnv(gateway as FakeGateway), STORE_TOKEN: token },
        });
      });
      for (let i = 0; i < 3; i++) {
        if (i > 0) await admin.store.put("jobs/current", { job: i });
        await Promise.all(replicas.map((r) => r.waitFor("trigger.run-end", i + 1)));
      }
      const ends = replicas.flatMap((r) => r.named("trigger.run-end"));
      const ran = ends.filter((e) => e.status === "ok").map((e) => e.runId);
      expect(ran).toHaveLength(3);
      expect(new Set(ran).size).toBe(3);
      expect(ends.filter((e) => e.status === "already-done")).toHaveLength(3);
      for (let i = 0; i < 3; i++)
        expect(await admin.store.get(`results/job-${i}`)).toEqual({ key: `results/job-${i}`, version: 1, value: { job: i } });
      // Each run's claim is marked done by the replica that ran it.
      const claims = await admin.store.list("claims/");
      expect(claims.map((c) => c.key).sort()).toEqual(ran.map((id) => `claims/${id}`).sort());
      for (const c of claims) expect((await admin.store.get(c.key))?.value).toMatchObject({ state: "done" });
    } finally {
      await admin.close();
    }
  }, 60_000);
});
