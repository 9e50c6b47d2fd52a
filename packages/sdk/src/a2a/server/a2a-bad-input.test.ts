/**
 * What the A2A endpoint refuses, over real HTTP on 127.0.0.1 with bearer auth: malformed JSON-RPC,
 * unknown methods, another principal's task id (not found, never leaked), oversize bodies, an
 * unsupported A2A-Version, missing credentials — each with the spec's error, the server carrying on.
 * Also the card's caching headers and the authenticated extended card.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { trickle, type Trickle } from "../../transport/http-server/__fixtures__/trickle-client.ts";
import { officialClient, serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";

setDefaultTimeout(30_000);

const ALICE = "alice-token-0123456789";
const BOB = "bob-token-0123456789abc";
let s: ServedAgent | undefined;
const trickles: Trickle[] = [];
afterEach(async () => {
  for (const t of trickles.splice(0)) t.stop();
  await s?.close();
  s = undefined;
});

async function serveWithAuth(maxBodyBytes?: number): Promise<ServedAgent> {
  s = await serveA2aAgent({
    http: {
      auth: {
        bearerTokens: [
          { token: ALICE, name: "alice" },
          { token: BOB, name: "bob" },
        ],
      },
      limits: { maxBodyBytes },
    },
  });
  return s;
}

async function rpc(
  base: string,
  body: unknown,
  token = ALICE,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "a2a-version": "1.0", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const send = (text: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "SendMessage",
  params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } },
});

describe("A2A bad input", () => {
  test("a body trickled a byte at a time gets 408 at the body deadline, connection closed, on every binding", async () => {
    s = await serveA2aAgent({ http: { auth: { bearerTokens: [{ token: ALICE, name: "alice" }] }, limits: { requestBodyTimeoutMs: 500 } } });
    const port = Number(new URL(s.base).port);
    const headers = { "content-type": "application/json", authorization: `Bearer ${ALICE}` };
    for (const [path, version] of [
      ["/a2a", "1.0"],
      ["/a2a/rest/message:send", "1.0"],
      ["/a2a/rest/v1/message:send", "0.3"],
    ] as const) {
      const t = trickle(port, path, { ...headers, "a2a-version": version }, 1000, 50);
      trickles.push(t);
      const answer = await t.closed;
      expect(answer).toStartWith("HTTP/1.1 408");
      expect(answer).toContain("the body did not arrive within 500 ms");
    }
    expect((await rpc(s.base, send("still fine"))).status).toBe(200);
  }, 20_000);

  test("malformed JSON, a non-request, an unknown method and bad params get -32700, -32600, -32601, -32602", async () => {
    const { base } = await serveWithAuth();
    expect((await rpc(base, "{not json")).json.error.code).toBe(-32700);
    expect((await rpc(base, [1, 2])).json.error.code).toBe(-32600);
    expect((await rpc(base, { jsonrpc: "1.0", id: 1, method: "GetTask" })).json.error.code).toBe(-32600);
    const unknown = await rpc(base, { jsonrpc: "2.0", id: 7, method: "tasks/explode", params: {} });
    expect(unknown.json).toMatchObject({ id: 7, error: { code: -32601 } });
    expect(unknown.json.error.data[0]).toMatchObject({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "METHOD_NOT_FOUND",
      domain: "a2a-protocol.org",
    });
    const bad = await rpc(base, {
      jsonrpc: "2.0",
      id: 8,
      method: "SendMessage",
      params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "a", data: 1 }] } },
    });
    expect(bad.json.error.code).toBe(-32602);
    // Still serving.
    expect((await rpc(base, send("ok"))).json.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  test("another principal's task id is not found, on get, cancel, subscribe and list; never leaked", async () => {
    const { base } = await serveWithAuth();
    const mine = (await rpc(base, send("secret plan"))).json.result.task;
    for (const method of ["GetTask", "CancelTask", "SubscribeToTask"]) {
      const r = await rpc(base, { jsonrpc: "2.0", id: 2, method, params: { id: mine.id } }, BOB);
      expect(r.json.error.code).toBe(-32001);
      expect(JSON.stringify(r.json)).not.toContain("secret plan");
    }
    const list = await rpc(base, { jsonrpc: "2.0", id: 3, method: "ListTasks", params: {} }, BOB);
    expect(list.json.result).toMatchObject({ tasks: [], totalSize: 0 });
    const own = await rpc(base, { jsonrpc: "2.0", id: 4, method: "ListTasks", params: {} }, ALICE);
    expect(own.json.result.tasks.map((t: { id: string }) => t.id)).toEqual([mine.id]);
  });

  test("missing or wrong credentials get 401; the card stays public with ETag and Cache-Control", async () => {
    const { base } = await serveWithAuth();
    expect((await fetch(`${base}/a2a`, { method: "POST", body: "{}" })).status).toBe(401);
    expect((await fetch(`${base}/a2a/rest/tasks`)).status).toBe(401);
    expect((await rpc(base, send("x"), "wrong-token-0123456789")).status).toBe(401);
    const card = await fetch(`${base}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } });
    expect(card.status).toBe(200);
    const etag = card.headers.get("etag")!;
    expect(card.headers.get("cache-control")).toContain("max-age");
    const body = await card.json();
    expect(body.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe("Bearer");
    expect(body.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
    expect((await fetch(`${base}/.well-known/agent-card.json`, { headers: { "if-none-match": etag, "a2a-version": "1.0" } })).status).toBe(
      304,
    );
    // Without A2A-Version the card is the v0.3 one, with its own ETag.
    const legacy = await fetch(`${base}/.well-known/agent-card.json`, { headers: { "if-none-match": etag } });
    expect(legacy.status).toBe(200);
    expect((await legacy.json()).securitySchemes.bearer).toEqual({
      type: "http",
      scheme: "Bearer",
      description: "A bearer token configured on the agent",
    });
    // The official client reads the card and the extended card with its token.
    const client = await officialClient(base, "JSONRPC", ALICE);
    const extended = await client.getAgentCard();
    expect(extended.name).toBe("test-agent");
  });

  test("an oversize body is refused with 413; an unsupported A2A-Version with -32009; an unknown task over HTTP+JSON with 404", async () => {
    const { base } = await serveWithAuth(4096);
    const big = await rpc(base, send("x".repeat(10_000)));
    expect(big.status).toBe(413);
    expect(big.json.error.code).toBe(-32600);
    const v = await rpc(base, send("x"), ALICE, { "a2a-version": "0.2" });
    expect(v.json.error.code).toBe(-32009);
    const rest = await fetch(`${base}/a2a/rest/tasks/nope`, { headers: { authorization: `Bearer ${ALICE}`, "a2a-version": "1.0" } });
    expect(rest.status).toBe(404);
    expect((await rest.json()).error.details[0].reason).toBe("TASK_NOT_FOUND");
  });
});

test("a principal's unfinished tasks are bounded: past the bound a new one is refused, others still served", async () => {
  const { gate } = await import("../../agent/__fixtures__/a2a-agent.ts");
  const g = gate();
  s = await serveA2aAgent({
    steps: [g.step, g.step],
    a2a: { tasks: { maxUnfinishedPerPrincipal: 1 } },
    http: {
      auth: {
        bearerTokens: [
          { token: ALICE, name: "alice" },
          { token: BOB, name: "bob" },
        ],
      },
    },
  });
  const first = await rpc(s.base, { ...send("one"), params: { ...send("one").params, configuration: { returnImmediately: true } } });
  expect(first.json.result.task.id).toBeString();
  const second = await rpc(s.base, { ...send("two"), params: { ...send("two").params, configuration: { returnImmediately: true } } });
  expect(second.json.error.code).toBe(-32004);
  const bobs = await rpc(
    s.base,
    { ...send("bob's"), params: { ...send("bob's").params, configuration: { returnImmediately: true } } },
    BOB,
  );
  expect(bobs.json.result.task.id).toBeString();
  g.release();
});
