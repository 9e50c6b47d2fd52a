/**
 * What agentd emits is in the proto's JSON mapping: the reference SDK's generated codecs (from the A2A
 * v1.0 proto) read each document and write it back unchanged — an unknown field, a misspelt enum or a
 * wrong oneof would not survive the round trip. And the reference client in its v0.3 compatibility mode
 * still reaches agentd over 1.0 (the card lists 1.0 first, so it prefers it; a2a-v03.test.ts drives its v0.3 transport).
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { AgentCard, Role, StreamResponse, TaskState } from "@a2a-js/sdk";
import { Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";

setDefaultTimeout(30_000);
let s: ServedAgent | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const post = async (base: string, body: unknown) =>
  fetch(`${base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify(body),
  });

test("the card, a task and every stream event survive the proto codecs' round trip unchanged", async () => {
  s = await serveA2aAgent({ http: { auth: { bearerTokens: ["tok-0123456789abcdef"] } } });
  const card = await (await fetch(`${s.base}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } })).json();
  expect(AgentCard.toJSON(AgentCard.fromJSON(card))).toEqual(card);

  const h = { "content-type": "application/json", "a2a-version": "1.0", authorization: "Bearer tok-0123456789abcdef" };
  const msg = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
  const sent = await (
    await fetch(`${s.base}/a2a`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: msg } }),
    })
  ).json();
  const task = sent.result.task;
  expect(Task.toJSON(Task.fromJSON(task))).toEqual(task);

  const res = await fetch(`${s.base}/a2a`, {
    method: "POST",
    headers: { ...h, accept: "text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "SendStreamingMessage", params: { message: { ...msg, messageId: "m2" } } }),
  });
  const text = await res.text();
  const events = text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)).result);
  expect(events.length).toBeGreaterThanOrEqual(3);
  for (const e of events) expect(StreamResponse.toJSON(StreamResponse.fromJSON(e))).toEqual(e);
});

test("the reference client in v0.3 compatibility mode reaches agentd over 1.0", async () => {
  s = await serveA2aAgent();
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
    }),
  );
  const client = await factory.createFromUrl(s.base);
  const result = await client.sendMessage({
    message: {
      messageId: "c1",
      role: Role.ROLE_USER,
      parts: [{ content: { $case: "text", value: "compat" }, metadata: undefined, filename: "", mediaType: "" }],
      contextId: "",
      taskId: "",
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    tenant: "",
    configuration: undefined,
    metadata: undefined,
  });
  if (!("status" in result)) throw new Error("expected a task");
  expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
});

test("with A2A-Version: 1.0 a v0.3 method name is unknown (-32601)", async () => {
  s = await serveA2aAgent();
  const r = await (
    await post(s.base, {
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", messageId: "x", role: "user", parts: [{ kind: "text", text: "hi" }] } },
    })
  ).json();
  expect(r.error.code).toBe(-32601);
});
