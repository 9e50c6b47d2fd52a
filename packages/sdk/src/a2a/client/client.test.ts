import { afterEach, describe, expect, test } from "bun:test";
import { chooseInterface } from "./agent-card.ts";
import { A2aClient, agentCardUrl } from "./client.ts";
import { startPeer, type Peer } from "@agentd/test-support/a2a-peer";
import type { StreamResponse } from "./wire-types.ts";

let peer: Peer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

const userMessage = (t: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: t }], ...extra },
});

test("the card URL sits under the agent URL unless a .json card is named", () => {
  expect(agentCardUrl("http://127.0.0.1:9/")).toBe("http://127.0.0.1:9/.well-known/agent-card.json");
  expect(agentCardUrl("http://h/agents/x/")).toBe("http://h/agents/x/.well-known/agent-card.json");
  expect(agentCardUrl("http://h/cards/x.json")).toBe("http://h/cards/x.json");
});

for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
  describe(`against @a2a-js/sdk over ${binding}`, () => {
    test("discovers the card and chooses the interface", async () => {
      peer = await startPeer();
      const client = await A2aClient.connect(peer.url, { preferBinding: binding });
      expect(client.card.name).toBe("scripted");
      expect(client.via.binding).toBe(binding);
      expect(client.via.url).toBe(`${peer.url}/a2a/${binding === "JSONRPC" ? "jsonrpc" : "rest"}`);
      expect(client.streaming).toBe(true);
    });

    test("SendMessage blocks until the task completes, with metadata reaching the peer", async () => {
      peer = await startPeer();
      const client = await A2aClient.connect(peer.url, { preferBinding: binding });
      const reply = await client.sendMessage(userMessage("echo hi", { metadata: { "agentd.dev/run-id": "run-1" } }));
      expect(reply.task?.status.state).toBe("TASK_STATE_COMPLETED");
      expect(reply.task?.artifacts?.[0]?.parts[0]?.text).toBe("echo: hi");
      expect(peer.received[0]?.metadata).toEqual({ "agentd.dev/run-id": "run-1" });
      const again = await client.getTask(reply.task!.id);
      expect(again.status.state).toBe("TASK_STATE_COMPLETED");
    });

    test("SendMessage may be answered by a message", async () => {
      peer = await startPeer();
      const client = await A2aClient.connect(peer.url, { preferBinding: binding });
      const reply = await client.sendMessage(userMessage("hello"));
      expect(reply.message?.parts[0]?.text).toBe("you said: hello");
    });

    test("SendStreamingMessage yields the task, its updates and the final state", async () => {
      peer = await startPeer();
      const client = await A2aClient.connect(peer.url, { preferBinding: binding });
      const events: StreamResponse[] = [];
      for await (const e of client.sendStreamingMessage(userMessage("echo streamed"))) events.push(e);
      expect(Object.keys(events[0]!)).toContain("task");
      const states = events.flatMap((e) => ("statusUpdate" in e ? [e.statusUpdate.status.state] : []));
      expect(states).toEqual(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]);
      const artifact = events.find((e) => "artifactUpdate" in e) as { artifactUpdate: { artifact: { parts: { text?: string }[] } } };
      expect(artifact.artifactUpdate.artifact.parts[0]?.text).toBe("echo: streamed");
    });

    test("CancelTask stops a hanging task", async () => {
      peer = await startPeer();
      const client = await A2aClient.connect(peer.url, { preferBinding: binding });
      const reply = await client.sendMessage({ ...userMessage("hang"), configuration: { returnImmediately: true } });
      const id = reply.task!.id;
      await peer.hanging;
      const task = await client.cancelTask(id);
      expect(task.status.state).toBe("TASK_STATE_CANCELED");
      expect(peer.cancelled).toEqual([id]);
    });

    test("SubscribeToTask re-attaches to a working task and follows it to its end", async () => {
      peer = await startPeer();
      const client = await A2aClient.connect(peer.url, { preferBinding: binding });
      const reply = await client.sendMessage({ ...userMessage("hang"), configuration: { returnImmediately: true } });
      const id = reply.task!.id;
      await peer.hanging;
      const events = client.subscribeToTask(id);
      const first = (await events.next()).value as StreamResponse;
      expect("task" in first && first.task.id).toBe(id);
      peer.finish(id);
      const rest: StreamResponse[] = [];
      for await (const e of { [Symbol.asyncIterator]: () => events }) rest.push(e);
      const last = rest.at(-1);
      expect(last && "statusUpdate" in last && last.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    });

    test("an unknown task is the peer's error, in one line", async () => {
      peer = await startPeer();
      const client = await A2aClient.connect(peer.url, { preferBinding: binding });
      const err = await client.getTask("no-such-task").catch((e: Error) => e);
      expect((err as Error).message).toMatch(/^A2A agent 'scripted' \(GetTask\): .*(code -32001|HTTP 404)/);
    });
  });
}

test("a v0.3-only agent is spoken to in v0.3 over JSON-RPC: send, stream, get, cancel, resubscribe", async () => {
  peer = await startPeer({ v03Only: true });
  const wire: string[] = [];
  const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
    if (init?.body) wire.push(`${new Headers(init.headers).get("a2a-version")} ${JSON.parse(String(init.body)).method}`);
    return fetch(input, init);
  }) as typeof fetch;
  const client = await A2aClient.connect(peer.url, { name: "old", fetch: recording });
  expect(client.via).toEqual({ binding: "JSONRPC", url: `${peer.url}/a2a/jsonrpc`, version: "0.3" });
  const reply = await client.sendMessage(userMessage("echo old", { metadata: { "agentd.dev/run-id": "run-3" } }));
  expect(reply.task?.status.state).toBe("TASK_STATE_COMPLETED");
  expect(reply.task?.artifacts?.[0]?.parts[0]?.text).toBe("echo: old");
  expect(peer.received[0]?.metadata).toEqual({ "agentd.dev/run-id": "run-3" });
  expect((await client.getTask(reply.task!.id)).status.state).toBe("TASK_STATE_COMPLETED");
  expect((await client.sendMessage(userMessage("hello"))).message?.parts[0]?.text).toBe("you said: hello");

  const events: StreamResponse[] = [];
  for await (const e of client.sendStreamingMessage(userMessage("echo streamed"))) events.push(e);
  expect(events.flatMap((e) => ("statusUpdate" in e ? [e.statusUpdate.status.state] : []))).toEqual([
    "TASK_STATE_WORKING",
    "TASK_STATE_COMPLETED",
  ]);

  const hang = await client.sendMessage({ ...userMessage("hang"), configuration: { returnImmediately: true } });
  const id = hang.task!.id;
  await peer.hanging;
  const sub = client.subscribeToTask(id);
  const first = (await sub.next()).value as StreamResponse;
  expect("task" in first && first.task.id).toBe(id);
  expect((await client.cancelTask(id)).status.state).toBe("TASK_STATE_CANCELED");
  const rest: StreamResponse[] = [];
  for await (const e of { [Symbol.asyncIterator]: () => sub }) rest.push(e);
  const last = rest.at(-1);
  expect(last && "statusUpdate" in last && last.statusUpdate.status.state).toBe("TASK_STATE_CANCELED");

  expect(new Set(wire)).toEqual(
    new Set(["0.3 message/send", "0.3 tasks/get", "0.3 message/stream", "0.3 tasks/resubscribe", "0.3 tasks/cancel"]),
  );
});

test("a v0.3-shaped card (no supportedInterfaces) yields its JSON-RPC URL; an HTTP+JSON-only v0.3 card is refused in one line", () => {
  const card = {
    name: "old",
    protocolVersion: "0.3.0",
    url: "http://h/rest",
    preferredTransport: "HTTP+JSON",
    additionalInterfaces: [{ url: "http://h/rpc", transport: "JSONRPC" }],
  };
  expect(chooseInterface(card)).toEqual({ binding: "JSONRPC", url: "http://h/rpc", version: "0.3" });
  expect(chooseInterface({ ...card, preferredTransport: "JSONRPC", url: "http://h/rpc0" })).toEqual({
    binding: "JSONRPC",
    url: "http://h/rpc0",
    version: "0.3",
  });
  expect(chooseInterface({ ...card, additionalInterfaces: [] })).toBe(
    "it speaks A2A 0.3.0 without a JSON-RPC interface, and agentd's A2A client speaks 1.0, or 0.3 over JSON-RPC only: offer one of those on the agent",
  );
});

test("headers carry the bearer token; a missing one is named", async () => {
  peer = await startPeer({ token: "s3cret" });
  const ok = await A2aClient.connect(peer.url, { headers: { Authorization: "Bearer s3cret" } });
  expect((await ok.sendMessage(userMessage("echo auth"))).task?.status.state).toBe("TASK_STATE_COMPLETED");
  const bad = await A2aClient.connect(peer.url, { headers: { Authorization: "Bearer wrong" } });
  const err = await bad.sendMessage(userMessage("echo auth")).catch((e: Error) => e);
  expect((err as Error).message).toBe("A2A agent 'scripted' (SendMessage): HTTP 401 Unauthorized: check the agent's headers (its token)");
});

test("an unreachable agent is one line naming the card URL", async () => {
  const err = await A2aClient.connect("http://127.0.0.1:1", { name: "gone" }).catch((e: Error) => e);
  expect((err as Error).message).toStartWith(
    "A2A agent 'gone': cannot read its agent card at http://127.0.0.1:1/.well-known/agent-card.json",
  );
});
