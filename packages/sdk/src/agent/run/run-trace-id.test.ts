import { expect, test } from "bun:test";
import { reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { RunEvent } from "../../loop/events.ts";
import { applyRunEvent, emptyRunDetail } from "../../serve/run-detail.ts";
import type { Telemetry } from "../../telemetry/types.ts";
import { createAgent } from "../create-agent.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

/** A telemetry backend whose every span belongs to one trace. */
const oneTrace: Telemetry = {
  run: () => ({ onEvent() {}, carrier: () => ({ traceparent: `00-${TRACE}-00f067aa0ba902b7-01` }) }),
  flush: async () => {},
  shutdown: async () => {},
};

test("with tracing on, a run's model requests name their trace, and the run's detail keeps it", async () => {
  const events: RunEvent[] = [];
  const agent = createAgent({ model: scriptedModel([reply("hi")]), telemetry: oneTrace, onEvent: (e) => events.push(e) });
  try {
    await agent.run("hello", { runId: "traced" });
  } finally {
    await agent.close();
  }
  const request = events.find((e) => e.type === "model-start");
  expect(request).toMatchObject({ traceId: TRACE });
  const detail = emptyRunDetail();
  for (const e of events) applyRunEvent(detail, e);
  expect(detail.traceId).toBe(TRACE);
});

test("without tracing, no trace id", async () => {
  const events: RunEvent[] = [];
  const agent = createAgent({ model: scriptedModel([reply("hi")]), onEvent: (e) => events.push(e) });
  try {
    await agent.run("hello", { runId: "plain" });
  } finally {
    await agent.close();
  }
  expect(events.find((e) => e.type === "model-start")).not.toHaveProperty("traceId");
});
