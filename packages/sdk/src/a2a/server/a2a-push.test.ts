/**
 * Push notifications with the official client: a webhook on 127.0.0.1 receives the task's events with
 * its token; configs are created, read, listed and deleted; a webhook outside loopback and the allow list
 * is refused; a failing webhook is retried a bounded number of times.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Role } from "@a2a-js/sdk";
import type { Step } from "../../loop/__fixtures__/scripted-model.ts";
import { echo, gate, officialClient, serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";

setDefaultTimeout(30_000);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A webhook on 127.0.0.1 recording what it is sent; answers `status` (default 200). */
function webhook(status = 200) {
  const received: { token: string | null; body: any }[] = [];
  const waiters: Array<() => void> = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      received.push({ token: req.headers.get("x-a2a-notification-token"), body: await req.json() });
      for (const w of waiters.splice(0)) w();
      return new Response(null, { status });
    },
  });
  cleanups.push(() => server.stop(true));
  const until = async (ok: () => boolean) => {
    while (!ok()) await new Promise<void>((r) => waiters.push(r));
  };
  return { url: `http://127.0.0.1:${server.port}/hook`, received, until };
}

async function serve(steps?: Step[]): Promise<ServedAgent> {
  const s = await serveA2aAgent({ steps });
  cleanups.push(() => s.close());
  return s;
}

const message = (text: string) => ({
  messageId: crypto.randomUUID(),
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "" }],
  contextId: "",
  taskId: "",
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

for (const binding of ["JSONRPC", "HTTP+JSON"] as const)
  describe(`push notifications over ${binding}`, () => {
    test("a webhook on loopback gets the task's events with its token; configs can be read, listed, deleted", async () => {
      const g = gate();
      const s = await serve([g.step, echo]);
      const hook = webhook();
      const client = await officialClient(s.base, binding);
      const task = await client.sendMessage({
        message: message("notify me"),
        tenant: "",
        metadata: undefined,
        configuration: {
          acceptedOutputModes: [],
          taskPushNotificationConfig: undefined,
          historyLength: undefined,
          returnImmediately: true,
        },
      });
      if (!("status" in task)) throw new Error("expected a task");
      const created = await client.createTaskPushNotificationConfig({
        tenant: "",
        id: "",
        taskId: task.id,
        url: hook.url,
        token: "tok-123",
        authentication: undefined,
      });
      expect(created.url).toBe(hook.url);
      expect((await client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: created.id })).token).toBe("tok-123");
      expect(
        (await client.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" })).configs,
      ).toHaveLength(1);
      await g.entered;
      g.release();
      await hook.until(() => hook.received.some((r) => r.body.statusUpdate?.status?.state === "TASK_STATE_COMPLETED"));
      expect(hook.received.every((r) => r.token === "tok-123")).toBe(true);
      expect(hook.received.some((r) => r.body.artifactUpdate?.artifact?.parts?.[0]?.text === "echo: notify me")).toBe(true);
      await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: created.id });
      expect(
        (await client.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" })).configs,
      ).toHaveLength(0);
    });

    test("a webhook outside loopback and the allow list is refused with invalid params", async () => {
      const s = await serve();
      const client = await officialClient(s.base, binding);
      const task = await client.sendMessage({ message: message("x"), tenant: "", metadata: undefined, configuration: undefined });
      if (!("status" in task)) throw new Error("expected a task");
      for (const url of [
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.1/hook",
        "file:///etc/passwd",
        "http://user:pw@127.0.0.1/x",
      ])
        await expect(
          client.createTaskPushNotificationConfig({ tenant: "", id: "", taskId: task.id, url, token: "", authentication: undefined }),
        ).rejects.toMatchObject({ name: "RequestMalformedError" });
    });
  });

test("a failing webhook is tried a bounded number of times per event", async () => {
  const s = await serve();
  const hook = webhook(503);
  const res = await fetch(`${s.base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] },
        configuration: { taskPushNotificationConfig: { url: hook.url, token: "t" } },
      },
    }),
  });
  expect((await res.json()).result.task.status.state).toBe("TASK_STATE_COMPLETED");
  // Every event three attempts, delivered in order: once "completed" (the last event) was tried three
  // times, every event before it was tried three times, and none more.
  const completed = () => hook.received.filter((r) => r.body.statusUpdate?.status?.state === "TASK_STATE_COMPLETED").length;
  await hook.until(() => completed() >= 3);
  const counts = new Map<string, number>();
  for (const r of hook.received) counts.set(JSON.stringify(r.body), (counts.get(JSON.stringify(r.body)) ?? 0) + 1);
  expect(counts.size).toBeGreaterThanOrEqual(3);
  expect([...counts.values()].every((n) => n === 3)).toBe(true);
});
