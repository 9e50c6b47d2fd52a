/**
 * A telemetry backend is handed the run itself (`Telemetry.run(run)`), not a bag of its fields: the object
 * `onStart` sees is the one the backend records, with its id, the caller's trace context and where it came
 * from — for a trigger's run, its firing (the firing span and the trigger-lag metric read it).
 */
import { afterEach, expect, test } from "bun:test";
import { createAgent, type Agent } from "../agent/create-agent.ts";
import type { Run } from "../agent/run/run.ts";
import { reply, scriptedModel } from "../loop/__fixtures__/scripted-model.ts";
import type { LanguageModel } from "../model/language-model.ts";
import type { Telemetry, TracedRun } from "./types.ts";

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** A backend that keeps what each `run()` was given. */
function recordingTelemetry(): { telemetry: Telemetry; traced: TracedRun[] } {
  const traced: TracedRun[] = [];
  const telemetry: Telemetry = {
    run(run) {
      traced.push(run);
      return { onEvent: () => {}, carrier: () => undefined };
    },
    flush: async () => {},
    shutdown: async () => {},
  };
  return { telemetry, traced };
}

const PARENT = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };

test("the backend records the Run itself: its id, the caller's trace context, its origin", async () => {
  const { telemetry, traced } = recordingTelemetry();
  agent = createAgent({ model: scriptedModel([reply("one")]) as LanguageModel, telemetry });
  let started: Run | undefined;
  await agent.run("hi", { runId: "r-traced", traceContext: PARENT, onStart: (run) => (started = run) });
  expect(traced).toHaveLength(1);
  expect(traced[0]).toBe(started as Run);
  expect(traced[0]).toMatchObject({ id: "r-traced", traceContext: PARENT, origin: { kind: "direct" } });
  expect((traced[0] as Run).state).toBe("finished");
});

test("a trigger's run carries its firing in its origin", async () => {
  const { telemetry, traced } = recordingTelemetry();
  agent = createAgent({ model: scriptedModel([reply("one")]) as LanguageModel, telemetry });
  const firedAt = new Date(Date.now() - 1000);
  await agent.run("tick", { runId: "r-tick", triggerEvent: { id: "every-minute", kind: "interval", firedAt } });
  expect(traced[0]?.origin).toMatchObject({ kind: "trigger", event: { id: "every-minute", kind: "interval", firedAt } });
  expect(traced[0]?.traceContext).toBeUndefined();
});
