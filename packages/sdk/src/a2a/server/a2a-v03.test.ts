/**
 * A2A v0.3 compatibility: a request without `A2A-Version` (or with 0.3) is answered in v0.3 shapes, each
 * validated against the official v0.3.0 JSON Schema (JSON-RPC); the reference client's v0.3 transports
 * (JSON-RPC, and HTTP+JSON in the v0.3 proto's JSON at `/v1/…`), chosen from the v0.3 card, drive blocking
 * and streaming send, get, push configs, cancel and resubscribe; `A2A-Version: 1.0` is unchanged.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { Role, TaskState, type AgentCard, type StreamResponse } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { echo, gate, serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";
import { checkV03, v03SchemaMissing } from "./__fixtures__/v03-oracle.ts";

setDefaultTimeout(30_000);
const started: { close(): unknown }[] = [];
afterEach(async () => {
  for (const s of started.splice(0).reverse()) await s.close();
});
async function serve(o: Parameters<typeof serveA2aAgent>[0] = {}): Promise<ServedAgent> {
  const s = await serveA2aAgent(o);
  started.push(s);
  return s;
}

let nextId = 1;
const post = (base: string, method: string, params: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
  });
const rpc = async (base: string, method: string, params: unknown, headers: Record<string, string> = {}) =>
  (await post(base, method, params, headers)).json();
const sseResults = (text: string) =>
  text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)));
const message = (text: string, extra: Record<string, unknown> = {}) => ({
  kind: "message",
  messageId: crypto.randomUUID(),
  role: "user",
  parts: [{ kind: "text", text }],
  ...extra,
});

test.skipIf(v03SchemaMissing)(
  "[needs ../shared] without A2A-Version: the card, send, stream, get and errors are v0.3 and validate",
  async () => {
    const s = await serve();
    const card = await (await fetch(`${s.base}/.well-known/agent-card.json`)).json();
    expect(checkV03("AgentCard", card)).toBe("");
    expect(card).toMatchObject({
      protocolVersion: "0.3.0",
      url: `${s.base}/a2a`,
      preferredTransport: "JSONRPC",
      supportsAuthenticatedExtendedCard: true,
    });
    expect(card.additionalInterfaces).toEqual([
      { url: `${s.base}/a2a`, transport: "JSONRPC" },
      { url: `${s.base}/a2a/rest`, transport: "HTTP+JSON" },
    ]);
    // With 1.0 the card is the v1.0 one, advertising the 0.3 interface after the 1.0 ones.
    const v1 = await (await fetch(`${s.base}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } })).json();
    expect(
      v1.supportedInterfaces.map((i: { protocolBinding: string; protocolVersion: string }) => `${i.protocolBinding} ${i.protocolVersion}`),
    ).toEqual(["JSONRPC 1.0", "HTTP+JSON 1.0", "JSONRPC 0.3", "HTTP+JSON 0.3"]);

    const sent = await rpc(s.base, "message/send", { message: message("hello") });
    expect(checkV03("SendMessageResponse", sent)).toBe("");
    expect(sent.result).toMatchObject({
      kind: "task",
      status: { state: "completed" },
      artifacts: [{ artifactId: "result", parts: [{ kind: "text", text: "echo: hello" }] }],
    });
    expect(sent.result.history[0]).toMatchObject({ kind: "message", role: "user" });

    const got = await rpc(s.base, "tasks/get", { id: sent.result.id, historyLength: 0 });
    expect(checkV03("GetTaskResponse", got)).toBe("");
    expect(got.result.history).toBeUndefined();

    const res = await post(s.base, "message/stream", { message: message("streamed", { contextId: sent.result.contextId }) });
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const events = sseResults(await res.text());
    for (const e of events) expect(checkV03("SendStreamingMessageResponse", e)).toBe("");
    expect(events.map((e) => e.result.kind)).toEqual(expect.arrayContaining(["task", "status-update", "artifact-update"]));
    expect(events.at(-1).result).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
    expect(events.slice(0, -1).every((e) => e.result.final !== true)).toBe(true);

    const missing = await rpc(s.base, "tasks/get", { id: "nope" });
    expect(checkV03("JSONRPCErrorResponse", missing)).toBe("");
    expect(checkV03("TaskNotFoundError", missing.error)).toBe("");
    const bad = await rpc(s.base, "message/send", {
      message: { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text" }] },
    });
    expect(bad.error.code).toBe(-32602);

    const ext = await rpc(s.base, "agent/getAuthenticatedExtendedCard", {});
    expect(checkV03("GetAuthenticatedExtendedCardResponse", ext)).toBe("");
  },
);

test.skipIf(v03SchemaMissing)(
  "[needs ../shared] v0.3 cancel, resubscribe and push configs validate; webhooks get v0.3 events",
  async () => {
    const g = gate();
    const s = await serve({ steps: [g.step, echo] });
    const received: { token: string | null; body: Record<string, unknown> }[] = [];
    let finished!: () => void;
    const done = new Promise<void>((r) => (finished = r));
    const hook = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const body = (await req.json()) as Record<string, unknown>;
        received.push({ token: req.headers.get("x-a2a-notification-token"), body });
        if (body.final === true) finished();
        return new Response(null, { status: 204 });
      },
    });
    started.push({ close: () => hook.stop(true) });

    const first = await rpc(s.base, "message/send", { message: message("long"), configuration: { blocking: false } });
    expect(["submitted", "working"]).toContain(first.result.status.state);
    const id = first.result.id;
    const url = `http://127.0.0.1:${hook.port}/hook`;
    const set = await rpc(s.base, "tasks/pushNotificationConfig/set", {
      taskId: id,
      pushNotificationConfig: { url, token: "tok-v03", authentication: { schemes: ["Bearer"], credentials: "c" } },
    });
    expect(checkV03("SetTaskPushNotificationConfigResponse", set)).toBe("");
    const configId = set.result.pushNotificationConfig.id;
    const get = await rpc(s.base, "tasks/pushNotificationConfig/get", { id });
    expect(checkV03("GetTaskPushNotificationConfigResponse", get)).toBe("");
    expect(get.result.pushNotificationConfig).toMatchObject({ id: configId, url, token: "tok-v03" });
    const list = await rpc(s.base, "tasks/pushNotificationConfig/list", { id });
    expect(checkV03("ListTaskPushNotificationConfigResponse", list)).toBe("");
    expect(list.result).toHaveLength(1);

    await g.entered;
    const sub = await post(s.base, "tasks/resubscribe", { id });
    const canceled = await rpc(s.base, "tasks/cancel", { id });
    expect(checkV03("CancelTaskResponse", canceled)).toBe("");
    expect(canceled.result.status.state).toBe("canceled");
    const events = sseResults(await sub.text());
    for (const e of events) expect(checkV03("SendStreamingMessageResponse", e)).toBe("");
    expect(events.at(-1).result).toMatchObject({ kind: "status-update", final: true, status: { state: "canceled" } });
    const again = await rpc(s.base, "tasks/cancel", { id });
    expect(checkV03("JSONRPCErrorResponse", again)).toBe("");
    expect(again.error.code).toBe(-32002);

    await done;
    for (const r of received) {
      expect(r.token).toBe("tok-v03");
      const def =
        { task: "Task", "status-update": "TaskStatusUpdateEvent", "artifact-update": "TaskArtifactUpdateEvent" }[String(r.body.kind)] ??
        "?";
      expect(checkV03(def, r.body)).toBe("");
    }
    const del = await rpc(s.base, "tasks/pushNotificationConfig/delete", { id, pushNotificationConfigId: configId });
    expect(checkV03("DeleteTaskPushNotificationConfigResponse", del)).toBe("");
  },
);

test("A2A-Version: 1.0 keeps the v1.0 names; an explicit 0.3 refuses them; another version is -32009", async () => {
  const s = await serve();
  const v1 = await rpc(
    s.base,
    "SendMessage",
    { message: { messageId: "a", role: "ROLE_USER", parts: [{ text: "hi" }] } },
    { "a2a-version": "1.0" },
  );
  expect(v1.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  expect((await rpc(s.base, "message/send", { message: message("hi") }, { "a2a-version": "1.0" })).error.code).toBe(-32601);
  expect(
    (
      await rpc(
        s.base,
        "SendMessage",
        { message: { messageId: "b", role: "ROLE_USER", parts: [{ text: "hi" }] } },
        { "a2a-version": "0.3" },
      )
    ).error.code,
  ).toBe(-32601);
  expect((await rpc(s.base, "message/send", { message: message("hi") }, { "a2a-version": "0.3" })).result.status.state).toBe("completed");
  expect((await rpc(s.base, "message/send", { message: message("hi") }, { "a2a-version": "2.0" })).error.code).toBe(-32009);
});

for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
  test(`the reference client's v0.3 ${binding} transport, chosen from the v0.3 card: extended card, send, stream, get, push configs, cancel, resubscribe`, async () => {
    const g = gate();
    const s = await serve({ steps: [echo, echo, g.step] });
    const calls: string[] = [];
    const versions = new Set<string | null>();
    const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
      calls.push(
        binding === "JSONRPC"
          ? JSON.parse(String(init?.body)).method
          : `${init?.method} ${new URL(String(input)).pathname.replace(/tasks\/[^/:]+/, "tasks/ID").replace(/Configs\/[^/]+$/, "Configs/ID")}`,
      );
      versions.add(new Headers(init?.headers).get("a2a-version"));
      return fetch(input, init);
    }) as typeof fetch;
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [
          new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } }),
          new RestTransportFactory({ fetchImpl, legacyCompat: { enabled: true } }),
        ],
        preferredTransports: [binding],
        cardResolver: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
      }),
    );
    // A v0.3 client reads the card without A2A-Version and gets the v0.3 card.
    const raw = await (await fetch(`${s.base}/.well-known/agent-card.json`)).json();
    const client = await factory.createFromAgentCard(raw as AgentCard);
    expect([client.transport.protocolName, client.transport.protocolVersion]).toEqual([binding, "0.3"]);
    const request = (text: string) => ({
      message: {
        messageId: crypto.randomUUID(),
        role: Role.ROLE_USER,
        parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "" }],
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

    // The authenticated extended card, through the v0.3 transport (/v1/card, agent/getAuthenticatedExtendedCard).
    expect((await client.getAgentCard()).name).toBe("test-agent");

    const result = await client.sendMessage(request("old"));
    if (!("status" in result)) throw new Error("expected a task");
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(result.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "echo: old" });
    expect((await client.getTask({ id: result.id, tenant: "", historyLength: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );

    // Push configs (the task has ended, so nothing is delivered to the URL).
    const hook = { tenant: "", taskId: result.id, url: "http://127.0.0.1:9/hook", token: "tok", authentication: undefined };
    const created = await client.createTaskPushNotificationConfig({ ...hook, id: "" });
    expect(created).toMatchObject({ taskId: result.id, url: hook.url, token: "tok" });
    expect(created.id).not.toBe("");
    expect((await client.getTaskPushNotificationConfig({ tenant: "", taskId: result.id, id: created.id })).url).toBe(hook.url);
    expect(
      (await client.listTaskPushNotificationConfig({ tenant: "", taskId: result.id, pageSize: 0, pageToken: "" })).configs.map((c) => c.id),
    ).toEqual([created.id]);
    await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: result.id, id: created.id });
    await expect(client.getTaskPushNotificationConfig({ tenant: "", taskId: result.id, id: created.id })).rejects.toMatchObject({
      name: "TaskNotFoundError",
    });

    const streamed: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(request("streamed"))) streamed.push(e);
    const last = streamed.at(-1)?.payload;
    expect(last?.$case).toBe("statusUpdate");
    if (last?.$case === "statusUpdate") expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    // A stream dropped while the task works, then resubscribe and cancel.
    const controller = new AbortController();
    const stream = client.sendMessageStream(request("long"), { signal: controller.signal });
    const firstEvent = (await stream.next()).value as StreamResponse;
    if (firstEvent.payload?.$case !== "task") throw new Error("expected the task first");
    const id = firstEvent.payload.value.id;
    await g.entered;
    controller.abort();
    await stream.return(undefined).catch(() => {});
    const resubscribed = client.resubscribeTask({ id, tenant: "" });
    expect(((await resubscribed.next()).value as StreamResponse).payload?.$case).toBe("task");
    expect((await client.cancelTask({ id, tenant: "", metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest: StreamResponse[] = [];
    for await (const e of { [Symbol.asyncIterator]: () => resubscribed }) rest.push(e);
    const end = rest.at(-1)?.payload;
    if (end?.$case !== "statusUpdate") throw new Error("expected the final status");
    expect(end.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ id, tenant: "", metadata: undefined })).rejects.toMatchObject({ name: "TaskNotCancelableError" });

    const expected =
      binding === "JSONRPC"
        ? [
            "agent/getAuthenticatedExtendedCard",
            "message/send",
            "tasks/get",
            "message/stream",
            "tasks/resubscribe",
            "tasks/cancel",
            ...["set", "get", "list", "delete"].map((m) => `tasks/pushNotificationConfig/${m}`),
          ]
        : [
            "GET /a2a/rest/v1/card",
            "POST /a2a/rest/v1/message:send",
            "GET /a2a/rest/v1/tasks/ID",
            "POST /a2a/rest/v1/message:stream",
            "GET /a2a/rest/v1/tasks/ID:subscribe",
            "POST /a2a/rest/v1/tasks/ID:cancel",
            "POST /a2a/rest/v1/tasks/ID/pushNotificationConfigs",
            "GET /a2a/rest/v1/tasks/ID/pushNotificationConfigs",
            "GET /a2a/rest/v1/tasks/ID/pushNotificationConfigs/ID",
            "DELETE /a2a/rest/v1/tasks/ID/pushNotificationConfigs/ID",
          ];
    expect(new Set(calls)).toEqual(new Set(expected));
    expect([...versions]).toEqual(["0.3"]);
  });
}
