/**
 * What a principal may do on `agentd serve` (run, read status, operator), over real HTTP: the served agent
 * (ServedAgent, MCP and A2A on one listener) with opaque access tokens from a real OpenID provider
 * (`oidc-provider`, checked by introspection, scopes mapped to permissions) and static bearer tokens with
 * configured permissions. A principal without `run` gets 403 `insufficient_scope` naming the scope that
 * grants it, before anything runs; a read-status principal reads its status but starts nothing.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ServedAgent, type ServedEndpoint } from "../agent/serving/served-agent.ts";
import { MACHINE_SECRET, type OidcProvider, RESOURCE_SERVER_SECRET, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { call, openSession, post, request } from "@agentd/test-support/raw-mcp-http";
import type { ServedRunner } from "./served-mcp.ts";

setDefaultTimeout(30_000);

const RUN_TOKEN = "static-runner-0123456789abcdef";
const STATUS_TOKEN = "static-status-0123456789abcdef";
let oidc: OidcProvider;
let host: ServedAgent;
let serving: ServedEndpoint;
let url: URL;
const started: string[] = [];

beforeAll(async () => {
  oidc = await startOidcProvider(() => "", { accessTokenFormat: "opaque" });
  const runner: ServedRunner = {
    async run(input, { runId }) {
      started.push(input);
      return {
        text: `done: ${input}`,
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        turns: 1,
        runId: runId!,
        stopReason: "final",
        toolCalls: 0,
      };
    },
  };
  host = new ServedAgent({ runner, ready: async () => ({ ok: true }) });
  serving = await host.serve({
    http: {
      hostname: "127.0.0.1",
      port: 0,
      auth: {
        bearerTokens: [
          { token: RUN_TOKEN, name: "runner" },
          { token: STATUS_TOKEN, name: "watcher", permissions: ["status"] },
        ],
        jwt: [
          {
            issuer: oidc.issuer,
            scopePermissions: {
              "agentd:run": ["run", "status"],
              "agentd:status": ["status"],
              "agentd:operator": ["run", "status", "operator"],
            },
            introspection: { clientId: "resource-server", clientSecret: RESOURCE_SERVER_SECRET },
          },
        ],
      },
    },
    a2a: true,
  });
  url = serving.url!;
});
afterAll(async () => {
  await host?.close();
  await oidc?.stop();
});

async function mint(scope: string): Promise<string> {
  const r = await fetch(`${oidc.issuer}/token`, {
    method: "POST",
    headers: { authorization: `Basic ${btoa(`machine:${MACHINE_SECRET}`)}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", resource: url.href, scope }),
  });
  return ((await r.json()) as { access_token: string }).access_token;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const runCall = (instruction: string) => request(7, "tools/call", { name: "agent.run", arguments: { instruction } });

/** agent.run as `token`: the raw HTTP answer. */
async function tryRun(token: string, instruction: string): Promise<Response> {
  const s = await openSession(url, bearer(token));
  return post(url, runCall(instruction), s.headers);
}

async function readStatus(token: string): Promise<Record<string, unknown>> {
  const s = await openSession(url, bearer(token));
  const { response } = await call(url, s, 3, "resources/read", { uri: "agent://status" });
  return JSON.parse((response as any).result.contents[0].text);
}

const a2a = (token: string, method: string, params: Record<string, unknown>) =>
  fetch(new URL("/a2a", url), {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", ...bearer(token) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });

describe("scopes and static tokens map to permissions", () => {
  test("a read-status token reads its status but agent.run is 403 insufficient_scope naming agentd:run", async () => {
    const token = await mint("agentd:status");
    const r = await tryRun(token, "must not run");
    expect(r.status).toBe(403);
    expect(r.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="agentd:run"');
    expect(r.headers.get("www-authenticate")).toContain("resource_metadata=");
    await r.body?.cancel();
    expect(started).not.toContain("must not run");
    expect(await readStatus(token)).toMatchObject({ runsStarted: 0 });
  });

  test("a run token runs and reads its own status; it is not an operator", async () => {
    const token = await mint("agentd:run");
    const s = await openSession(url, bearer(token));
    const { response } = await call(url, s, 2, "tools/call", { name: "agent.run", arguments: { instruction: "build it" } });
    expect((response as any).result.content[0].text).toBe("done: build it");
    const status = await readStatus(token);
    expect(status).toMatchObject({ runsStarted: 1 });
    expect(status.principals).toBeUndefined();
  });

  test("an operator token sees every principal's runs", async () => {
    const status = await readStatus(await mint("agentd:operator"));
    expect(Object.keys(status.principals as object)).toContain(`jwt:${oidc.issuer}#machine`);
  });

  test("a token whose scopes grant nothing may connect but neither read status nor run", async () => {
    const token = await mint("mcp:tools");
    const s = await openSession(url, bearer(token));
    const r = await post(url, request(4, "resources/read", { uri: "agent://status" }), s.headers);
    await r.body?.cancel();
    expect(r.status).toBe(403);
    expect(r.headers.get("www-authenticate")).toContain('scope="agentd:status"');
    const list = await call(url, s, 5, "tools/list");
    expect((list.response as any).result.tools.map((t: { name: string }) => t.name)).toContain("agent.run");
  });

  test("a static read-status token: status yes, agent.run 403; a static token without permissions runs", async () => {
    const r = await tryRun(STATUS_TOKEN, "static must not run");
    expect(r.status).toBe(403);
    expect(r.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    await r.body?.cancel();
    expect(await readStatus(STATUS_TOKEN)).toMatchObject({ runsStarted: 0 });
    const ok = await tryRun(RUN_TOKEN, "static runs");
    expect(ok.status).toBe(200);
    await ok.text();
    expect(started).toContain("static runs");
    expect(started).not.toContain("static must not run");
  });

  test("A2A: SendMessage needs run (403 naming agentd:run), ListTasks needs status", async () => {
    const token = await mint("agentd:status");
    const send = await a2a(token, "SendMessage", {
      message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "a2a must not run" }] },
    });
    expect(send.status).toBe(403);
    expect(send.headers.get("www-authenticate")).toContain('error="insufficient_scope", scope="agentd:run"');
    await send.body?.cancel();
    const list = await a2a(token, "ListTasks", {});
    expect(list.status).toBe(200);
    expect(((await list.json()) as { result?: unknown }).result).toBeDefined();
    expect(started).not.toContain("a2a must not run");
  });

  test("A2A v0.3 (no A2A-Version header): message/send and the /v1 REST send need run, tasks/get needs only status", async () => {
    const token = await mint("agentd:status");
    const v03 = (method: string, params: Record<string, unknown>) =>
      fetch(new URL("/a2a", url), {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(token) },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      });
    const message = { kind: "message", messageId: "m03", role: "user", parts: [{ kind: "text", text: "v03 must not run" }] };
    const send = await v03("message/send", { message });
    expect(send.status).toBe(403);
    expect(send.headers.get("www-authenticate")).toContain('scope="agentd:run"');
    await send.body?.cancel();
    const stream = await v03("message/stream", { message });
    expect(stream.status).toBe(403);
    await stream.body?.cancel();
    const rest = await fetch(new URL("/a2a/rest/v1/message:send", url), {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(token) },
      body: JSON.stringify({ request: { messageId: "m04", role: "ROLE_USER", content: [{ text: "v03 rest must not run" }] } }),
    });
    expect(rest.status).toBe(403);
    await rest.body?.cancel();
    const get = await v03("tasks/get", { id: "no-such-task" });
    expect(get.status).toBe(200);
    expect(((await get.json()) as { error?: { code: number } }).error?.code).toBe(-32001);
    expect(started).not.toContain("v03 must not run");
    expect(started).not.toContain("v03 rest must not run");
  });
});
