/**
 * A run takes in what peers say (tool results, the model's text and errors) and masks the secrets in it once,
 * where it enters: every event a listener, telemetry or the run history sees, the result every caller gets,
 * and the error a failed run rejects with. Over a scripted model and an in-memory tool that echoes the secret.
 */
import { afterEach, expect, test } from "bun:test";
import { memoryToolSet } from "../../loop/__fixtures__/memory-tools.ts";
import { callTools, reply, scriptedModel, type Step } from "../../loop/__fixtures__/scripted-model.ts";
import type { RunEvent } from "../../loop/events.ts";
import { registerSecretValue } from "../../secret-values.ts";
import { type Agent, createAgent } from "../create-agent.ts";

const SECRET = "run-Secret-4Fq9Lz2Wx";
registerSecretValue(SECRET);

const agents: Agent[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
});

function agentWith(steps: Step[]): Agent {
  const tools = memoryToolSet([{ name: "vault/peek", run: () => `the key is ${SECRET}` }]);
  const agent = createAgent({ model: scriptedModel(steps), tools });
  agents.push(agent);
  return agent;
}

test("the events, the answer and the structured output of a run carry the secret masked", async () => {
  const agent = agentWith([callTools([["vault__peek", { hint: `try ${SECRET}` }]]), reply(JSON.stringify({ said: `it was ${SECRET}` }))]);
  const events: RunEvent[] = [];
  const result = await agent.run("peek", {
    runId: "m1",
    stream: true,
    outputSchema: { type: "object", properties: { said: { type: "string" } }, required: ["said"] },
    onEvent: (e) => events.push(e),
  });
  const seen = JSON.stringify(events);
  expect(seen).not.toContain(SECRET);
  expect(events.find((e) => e.type === "tool-result")).toMatchObject({ summary: "the key is [redacted]" });
  expect(events.find((e) => e.type === "tool-call")).toMatchObject({ arguments: { hint: "try [redacted]" } });
  // The model wrote the answer three characters a delta: the secret, split over them, is masked too.
  const streamed = events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
  expect(streamed).toContain("[redacted]");
  expect(streamed).not.toContain(SECRET.slice(0, 4));
  expect(result.text).toBe(JSON.stringify({ said: "it was [redacted]" }));
  expect(result.output).toEqual({ said: "it was [redacted]" });
});

test("a failed run rejects with its error masked, and its run-end event says so masked", async () => {
  const agent = agentWith([
    () => {
      throw new Error(`gateway said: bad key ${SECRET}`);
    },
  ]);
  const events: RunEvent[] = [];
  const failure = await agent.run("go", { runId: "m2", onEvent: (e) => events.push(e) }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(failure?.message).toContain("[redacted]");
  expect(failure?.message).not.toContain(SECRET);
  expect(String(failure?.stack)).not.toContain(SECRET);
  expect(JSON.stringify(events)).not.toContain(SECRET);
});
