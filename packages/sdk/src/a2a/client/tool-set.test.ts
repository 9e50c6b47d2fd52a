/**
 * Remote A2A agents as tools, through createAgent and the loop, against an `@a2a-js/sdk` peer on
 * 127.0.0.1: one `a2a:NAME` tool per agent with its skills in the description, blocking (polled) and
 * streamed sends, the run id in message metadata, usage counted, replies fenced, input-required answered
 * on the same task, the remote task cancelled at the run's deadline, scope globs, an unreachable optional
 * agent left out.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startPeer, type Peer, type PeerOptions } from "@agentd/test-support/a2a-peer";
import { createLogger, memoryLogger } from "../../log.ts";
import { callTools, reply, scriptedModel, STEP_USAGE } from "../../loop/__fixtures__/scripted-model.ts";
import type { ModelRequest, ToolResultPart } from "../../model/language-model.ts";
import { RUN_ID_META_KEY } from "../../mcp/protocol/meta.ts";
import { createAgent, type Agent } from "../../agent/create-agent.ts";

setDefaultTimeout(30_000);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
async function peerWith(options: PeerOptions = {}): Promise<Peer> {
  const p = await startPeer(options);
  cleanups.push(() => p.close());
  return p;
}
function track(agent: Agent): Agent {
  cleanups.push(() => agent.close());
  return agent;
}
const lastResult = (request: ModelRequest): ToolResultPart | undefined =>
  request.messages.flatMap((m) => (m.role === "tool" ? m.content : [])).at(-1);

describe.each([
  ["streamed", {}],
  ["polled (no streaming)", { noStreaming: true }],
] as const)("a2a:NAME tools, %s", (_label, peerOptions) => {
  test("the model's message reaches the peer with the run id; the answer comes back fenced, its usage counted", async () => {
    const peer = await peerWith(peerOptions);
    let seen: ToolResultPart | undefined;
    const model = scriptedModel([
      callTools([["a2a_peer", { message: "echo hello" }]]),
      (request) => {
        seen = lastResult(request);
        return reply("done");
      },
    ]);
    const log = memoryLogger();
    const agent = track(createAgent({ model, a2aAgents: { peer: { url: peer.url } }, logger: log }));
    const tools = await agent.listTools();
    expect(tools.map((t) => t.name)).toEqual(["a2a:peer"]);
    expect(tools[0]?.description).toContain("- Echo: Repeats the text after 'echo'");
    const result = await agent.run("delegate", { runId: "run-a2a-1" });
    expect(result.text).toBe("done");
    expect(peer.received[0]?.metadata).toEqual({ [RUN_ID_META_KEY]: "run-a2a-1" });
    expect(seen?.isError).toBeFalsy();
    expect(seen?.output).toContain("echo: hello");
    expect(seen?.output).toMatch(/untrusted|<tool_output|UNTRUSTED/i);
    // Two model steps plus the peer's reported 7 + 3 tokens.
    expect(result.usage.inputTokens).toBe(2 * STEP_USAGE.inputTokens + 7);
    expect(result.usage.outputTokens).toBe(2 * STEP_USAGE.outputTokens + 3);
    const states = log.records.filter((r) => r.event === "a2a.status").map((r) => r.state);
    expect(states.at(-1)).toBe("completed");
    expect(states.every((s) => typeof s === "string")).toBe(true);
  });

  test("input-required: the question is an observation, the answer goes to the same task", async () => {
    const peer = await peerWith(peerOptions);
    const outputs: string[] = [];
    const model = scriptedModel([
      callTools([["a2a_peer", { message: "ask" }]]),
      (request) => {
        const r = lastResult(request)!;
        outputs.push(r.output);
        const call = /call a2a:peer again with (\{.*\})/.exec(r.output);
        const ids = JSON.parse(call![1]!) as { taskId: string; contextId: string };
        return callTools([["a2a_peer", { message: "blue", taskId: ids.taskId, contextId: ids.contextId }]]);
      },
      (request) => {
        outputs.push(lastResult(request)!.output);
        return reply("the colour is set");
      },
    ]);
    const agent = track(createAgent({ model, a2aAgents: { peer: { url: peer.url } } }));
    await agent.run("pick a colour");
    expect(outputs[0]).toContain("needs more input before it can go on");
    expect(outputs[0]).toContain("Which colour?");
    expect(outputs[1]).toContain("colour: blue");
    expect(peer.received.map((m) => m.text)).toEqual(["ask", "blue"]);
    expect(peer.received[1]?.taskId).toBe(peer.received[0]!.taskId);
    expect(peer.received[1]?.contextId).toBe(peer.received[0]!.contextId);
  });

  test("a caller's cancel cancels the remote task (CancelTask), and close() waits for it", async () => {
    const peer = await peerWith(peerOptions);
    const model = scriptedModel([callTools([["a2a_peer", { message: "hang" }]]), reply("unreachable")]);
    const log = memoryLogger();
    // Cancel once agentd has seen the task working (before that it does not know the task's id).
    let seenWorking: () => void = () => {};
    const working = new Promise<void>((r) => (seenWorking = r));
    const logger = createLogger((r) => {
      log.log(r.level, r.event, r);
      if (r.event === "a2a.status" && r.state === "working") seenWorking();
    });
    const agent = track(createAgent({ model, a2aAgents: { peer: { url: peer.url } }, logger }));
    const caller = new AbortController();
    const started = agent.run("delegate and wait", { signal: caller.signal });
    const id = await peer.hanging;
    await working;
    caller.abort(new Error("the caller gave up"));
    await expect(started).rejects.toThrow();
    await agent.close();
    // close() waited for the CancelTask: its outcome is already logged.
    expect(log.records.find((r) => r.event === "a2a.cancelled")).toMatchObject({ agent: "peer", taskId: id, state: "canceled" });
    expect(peer.cancelled).toEqual([id]);
  });
});

test("a deadline during the remote task cancels it", async () => {
  const peer = await peerWith();
  const model = scriptedModel([callTools([["a2a_peer", { message: "hang" }]]), reply("unreachable")]);
  const agent = track(createAgent({ model, a2aAgents: { peer: { url: peer.url } } }));
  // The deadline is long enough for the task to start on a loaded machine; if it were not, the test
  // would fail (no cancel), never pass wrongly.
  const err = await agent.run("delegate", { limits: { deadlineMs: 4000 } }).catch((e: { code?: string }) => e);
  expect(err).toMatchObject({ code: "E_BUDGET_DEADLINE" });
  expect(await peer.cancelledOnce).toBe(await peer.hanging);
});

test("scope globs select a2a tools like any other", async () => {
  const peer = await peerWith();
  let seen: ToolResultPart | undefined;
  const model = scriptedModel([
    callTools([["a2a_peer", { message: "echo x" }]]),
    (request) => {
      seen = lastResult(request);
      return reply("ok");
    },
  ]);
  const agent = track(createAgent({ model, a2aAgents: { peer: { url: peer.url } }, scope: { allow: ["fs/*"] } }));
  await agent.run("try");
  expect(seen?.isError).toBe(true);
  expect(seen?.output).toContain('tool "a2a:peer" is not allowed in this run (outside its scope)');
  expect(peer.received).toEqual([]);
});

test("an unreachable optional agent is left out; a required one fails the listing in one line", async () => {
  const model = scriptedModel([reply("fine")]);
  const optional = track(createAgent({ model, a2aAgents: { gone: { url: "http://127.0.0.1:1", required: false } } }));
  expect(await optional.listTools()).toEqual([]);
  const required = track(createAgent({ model, a2aAgents: { gone: { url: "http://127.0.0.1:1" } } }));
  await expect(required.listTools()).rejects.toThrow(
    "A2A agent 'gone': cannot read its agent card at http://127.0.0.1:1/.well-known/agent-card.json",
  );
});
