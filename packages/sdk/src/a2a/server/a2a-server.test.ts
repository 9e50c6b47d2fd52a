/**
 * agentd as an A2A v1.0 server, proven with the official `@a2a-js/sdk` client over real HTTP on
 * 127.0.0.1: card discovery, blocking and streaming SendMessage, GetTask, ListTasks, CancelTask,
 * SubscribeToTask after a dropped stream, on both the JSON-RPC and the HTTP+JSON bindings.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Role, TaskState, type StreamResponse } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import { echo, gate, officialClient, serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";

setDefaultTimeout(30_000);

const started: ServedAgent[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.close();
});
async function serve(o: Parameters<typeof serveA2aAgent>[0] = {}): Promise<ServedAgent> {
  const s = await serveA2aAgent(o);
  started.push(s);
  return s;
}

const userMessage = (text: string, extra: { contextId?: string; taskId?: string } = {}) => ({
  message: {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "" }],
    contextId: extra.contextId ?? "",
    taskId: extra.taskId ?? "",
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  tenant: "",
  configuration: undefined,
  metadata: undefined,
});
const textOf = (task: { artifacts: { parts: { content?: { $case: string; value: unknown } }[] }[] }) =>
  task.artifacts.flatMap((a) => a.parts.map((p) => (p.content?.$case === "text" ? p.content.value : ""))).join("");

async function collect(it: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of it) out.push(e);
  return out;
}

for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
  describe(`A2A server over ${binding}`, () => {
    let client: Client;

    test("the card is discovered and a blocking SendMessage returns the completed task with its artifact", async () => {
      const s = await serve();
      client = await officialClient(s.base, binding);
      const card = await client.getAgentCard();
      expect(card.name).toBe("test-agent");
      expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual([
        "JSONRPC 1.0",
        "HTTP+JSON 1.0",
        "JSONRPC 0.3",
        "HTTP+JSON 0.3",
      ]);
      expect(card.capabilities?.streaming).toBe(true);
      expect(card.skills.map((k) => k.id)).toContain("run");

      const result = await client.sendMessage(userMessage("hello"));
      if (!("status" in result)) throw new Error("expected a task");
      expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(result)).toBe("echo: hello");
      expect(client.transport.protocolName).toBe(binding);
      const got = await client.getTask({ id: result.id, tenant: "", historyLength: undefined });
      expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(got.history.length).toBeGreaterThan(0);
    });

    test("returnImmediately answers while working; streaming SendMessage ends with completed; ListTasks lists both", async () => {
      const g = gate();
      const s = await serve({ steps: [g.step, echo, echo] });
      client = await officialClient(s.base, binding);
      const params = {
        ...userMessage("slow"),
        configuration: {
          acceptedOutputModes: [],
          taskPushNotificationConfig: undefined,
          historyLength: undefined,
          returnImmediately: true,
        },
      };
      const first = await client.sendMessage(params);
      if (!("status" in first)) throw new Error("expected a task");
      expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(first.status!.state);
      await g.entered;
      g.release();

      const events = await collect(client.sendMessageStream(userMessage("streamed", { contextId: first.contextId })));
      expect(events[0]?.payload?.$case).toBe("task");
      const cases = events.map((e) => e.payload?.$case);
      expect(cases).toContain("artifactUpdate");
      const last = events.at(-1)!.payload!;
      expect(last.$case).toBe("statusUpdate");
      if (last.$case === "statusUpdate") expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

      const list = await client.listTasks({
        tenant: "",
        contextId: first.contextId,
        status: 0,
        pageSize: undefined,
        pageToken: "",
        historyLength: undefined,
        statusTimestampAfter: undefined,
        includeArtifacts: undefined,
      });
      expect(list.tasks.map((t) => t.id)).toContain(first.id);
      expect(list.totalSize).toBe(2);
      // The follow-up in the same context continued its conversation: the earlier exchange went to the model
      // as the turns it was, then the new request.
      const sent = s.model.requests[1]!.messages.filter((m) => m.role !== "system");
      expect(
        sent.map((m) => [m.role, typeof m.content === "string" ? m.content : m.content.map((p) => ("text" in p ? p.text : "")).join("")]),
      ).toEqual([
        ["user", "slow"],
        ["assistant", "echo: slow"],
        ["user", "streamed"],
      ]);
    });

    test("CancelTask cancels a working task; SubscribeToTask after a dropped stream sees it end", async () => {
      const g = gate();
      const s = await serve({ steps: [g.step] });
      client = await officialClient(s.base, binding);
      const controller = new AbortController();
      const stream = client.sendMessageStream(userMessage("long"), { signal: controller.signal });
      const firstEvent = (await stream.next()).value as StreamResponse;
      if (firstEvent.payload?.$case !== "task") throw new Error("expected the task first");
      const id = firstEvent.payload.value.id;
      await g.entered;
      controller.abort();
      await stream.return(undefined).catch(() => {});

      const resubscribed = client.resubscribeTask({ id, tenant: "" });
      const snapshot = (await resubscribed.next()).value as StreamResponse;
      expect(snapshot.payload?.$case).toBe("task");
      const canceled = await client.cancelTask({ id, tenant: "", metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const rest: StreamResponse[] = [];
      for await (const e of { [Symbol.asyncIterator]: () => resubscribed }) rest.push(e);
      const end = rest.at(-1)?.payload;
      expect(end?.$case).toBe("statusUpdate");
      if (end?.$case === "statusUpdate") expect(end.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      // A finished task cannot be canceled again.
      await expect(client.cancelTask({ id, tenant: "", metadata: undefined })).rejects.toMatchObject({ name: "TaskNotCancelableError" });
    });
  });
}
