/**
 * Incoming W3C trace context on A2A: the `traceparent` (and `tracestate`) header of a SendMessage request
 * becomes the parent of the run it starts, as `_meta.traceparent` does for `agent.run` over MCP. The agent's
 * telemetry is a recording backend (the interface OpenTelemetry plugs into); real HTTP on 127.0.0.1.
 */
import { afterEach, expect, test } from "bun:test";
import { createAgent, type Agent } from "../../agent/create-agent.ts";
import { reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { LanguageModel } from "../../model/language-model.ts";
import type { Telemetry, TracedRun } from "../../telemetry/types.ts";

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** A telemetry backend that records where each run came from. */
function recordingTelemetry(): { telemetry: Telemetry; origins: TracedRun[] } {
  const origins: TracedRun[] = [];
  const telemetry: Telemetry = {
    run(run) {
      origins.push(run);
      return { onEvent: () => {}, carrier: () => undefined };
    },
    flush: async () => {},
    shutdown: async () => {},
  };
  return { telemetry, origins };
}

const PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

async function sendMessage(base: string, headers: Record<string, string>) {
  const res = await fetch(`${base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hello" }] } },
    }),
  });
  return (await res.json()) as { result?: { task?: { status?: { state?: string } } }; error?: unknown };
}

test("a SendMessage's traceparent and tracestate are the parent of its run; a malformed one starts a fresh trace", async () => {
  const { telemetry, origins } = recordingTelemetry();
  agent = createAgent({ model: scriptedModel([reply("one"), reply("two")]) as LanguageModel, telemetry });
  const serving = await agent.serve({
    http: { hostname: "127.0.0.1", port: 0 },
    a2a: { card: { name: "traced", description: "a traced agent" } },
  });
  const base = serving.url!.origin;

  const first = await sendMessage(base, { traceparent: PARENT, tracestate: "vendor=1" });
  expect(first.result?.task?.status?.state).toBe("TASK_STATE_COMPLETED");
  expect(origins).toHaveLength(1);
  expect(origins[0]!.traceContext).toEqual({ traceparent: PARENT, tracestate: "vendor=1" });

  const second = await sendMessage(base, { traceparent: "not-a-traceparent" });
  expect(second.result?.task?.status?.state).toBe("TASK_STATE_COMPLETED");
  expect(origins).toHaveLength(2);
  expect(origins[1]!.traceContext).toBeUndefined();
});
