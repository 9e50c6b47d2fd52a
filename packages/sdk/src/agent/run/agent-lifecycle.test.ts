/**
 * The agent's life beyond one run: drain lets runs in flight finish within the grace and cancels the rest,
 * serving on HTTP answers /healthz and /readyz (503 while draining), and misuse is one clear error.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { hangUntilAborted, reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { ModelRequest, ModelResponse } from "../../model/language-model.ts";
import { AgentdError } from "../../wire/errors.ts";
import { createAgent, type Agent } from "../create-agent.ts";

const agents: Agent[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
});
const track = (a: Agent) => (agents.push(a), a);

/** A model step that waits for `release` before answering, and says when it was asked. */
function gatedStep(text: string) {
  let asked!: () => void;
  let release!: () => void;
  const wasAsked = new Promise<void>((r) => (asked = r));
  const released = new Promise<void>((r) => (release = r));
  const step = async (_: ModelRequest): Promise<ModelResponse> => {
    asked();
    await released;
    return reply(text);
  };
  return { step, wasAsked, release };
}

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return AgentdError.isInstance(e) ? e.code : String(e);
  }
};

describe("agent.drain", () => {
  test("a run in flight finishes within the grace; new runs are refused meanwhile; then the agent is closed", async () => {
    const gate = gatedStep("finished in time");
    const agent = track(createAgent({ model: scriptedModel([gate.step]) }));
    const running = agent.run("work");
    await gate.wasAsked;
    const draining = agent.drain(60_000, "SIGTERM");
    expect(agent.status()).toMatchObject({ state: "draining", inFlight: 1 });
    expect(await codeOf(agent.run("more work"))).toBe("E_UPSTREAM");
    gate.release();
    expect((await running).text).toBe("finished in time");
    expect(agent.drain(0)).toBe(draining); // a second drain joins the first: its grace stands
    await draining;
    expect(agent.status()).toMatchObject({ state: "closed", inFlight: 0 });
    expect(await codeOf(agent.run("after close"))).toBe("E_USAGE");
  });

  test("past the grace the run is cancelled (E_ABORTED) and the drain still ends", async () => {
    let asked!: () => void;
    const wasAsked = new Promise<void>((r) => (asked = r));
    const agent = track(createAgent({ model: scriptedModel([hangUntilAborted(() => asked())]) }));
    const outcome = codeOf(agent.run("never ends"));
    await wasAsked;
    await agent.drain(50, "SIGTERM");
    expect(await outcome).toBe("E_ABORTED");
    expect(agent.status().state).toBe("closed");
  });
});

describe("serving on HTTP", () => {
  test("/healthz answers, /readyz is 200 with a model and 503 while draining", async () => {
    const gate = gatedStep("done");
    const agent = track(createAgent({ model: scriptedModel([gate.step]) }));
    const { url } = await agent.serve({ http: { hostname: "127.0.0.1", port: 0 } });
    const base = new URL("/", url!);
    expect((await fetch(new URL("/healthz", base))).status).toBe(200);
    expect((await fetch(new URL("/readyz", base))).status).toBe(200);
    const running = agent.run("hold the drain open");
    await gate.wasAsked;
    const draining = agent.drain(60_000);
    const ready = await fetch(new URL("/readyz", base));
    expect([ready.status, await ready.text()]).toEqual([503, "draining\n"]);
    gate.release();
    await running;
    await draining;
  });

  test("without a model it serves, /readyz says so, and runs are refused with the line to fix it", async () => {
    const agent = track(createAgent({}));
    const { url } = await agent.serve({ http: { hostname: "127.0.0.1", port: 0 } });
    const ready = await fetch(new URL("/readyz", url));
    expect([ready.status, await ready.text()]).toEqual([503, "model not configured\n"]);
    expect(await codeOf(agent.run("x"))).toBe("E_CONFIG_INVALID");
  });
});

describe("misuse is one clear error", () => {
  test("start() without triggers; triggers without a model", async () => {
    const agent = track(createAgent({ model: scriptedModel([]) }));
    expect(await codeOf(agent.start())).toBe("E_USAGE");
    expect(() => createAgent({ triggers: { specs: [{ kind: "interval", id: "interval", everyMs: 0, instruction: "x" }] } })).toThrow(
      "no model is",
    );
  });
});
