/**
 * The API reference's examples run, not only type-check: each against the testkit's fake gateway (real HTTP
 * on 127.0.0.1), so an example that stops working fails here before a reader copies it.
 */
import { afterEach, expect, test } from "bun:test";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createAgentExample,
  createAgentFromConfigExample,
  resumeExample,
  serveFromConfigExample,
  streamExample,
} from "./create-agent.examples.ts";
import { createFakeMcpServerExample, createModelExample, startFakeGatewayExample } from "./testkit.examples.ts";

let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

test("createAgent with a typed tool: the model calls it and answers from its result", async () => {
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      { toolCalls: [{ name: "weather", arguments: { city: "Lisbon" } }] },
      (req) => ({ text: req.lastToolResult?.includes("sunny in Lisbon") ? "Sunny." : "no tool result" }),
    ],
  });
  expect(await createAgentExample(gateway.url)).toBe("Sunny.");
});

test("agent.run ends waiting for the call the rules hold; agent.resume approves it and the run finishes", async () => {
  const state = mkdtempSync(join(tmpdir(), "agentd-example-state-"));
  const before = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = state;
  try {
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        { toolCalls: [{ name: "clean", arguments: { path: "/tmp/build" } }] },
        (req) => ({ text: req.lastToolResult?.includes("deleted /tmp/build") ? "Cleaned." : "not cleaned" }),
      ],
    });
    expect(await resumeExample(gateway.url)).toBe("Cleaned.");
  } finally {
    if (before === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = before;
    rmSync(state, { recursive: true, force: true });
  }
});

test("agent.stream yields the text as it arrives", async () => {
  gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "pipes hum at night" }] });
  expect((await streamExample(gateway.url)).join("")).toBe("pipes hum at night");
});

test("createAgentFromConfig runs the parsed configuration", async () => {
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [(req) => ({ text: req.messages.some((m) => JSON.stringify(m).includes("one sentence")) ? "hello" : "no instructions" })],
  });
  expect(await createAgentFromConfigExample(gateway.url)).toBe("hello");
});

test("serve() without options serves the config's serve block: the A2A card it describes", async () => {
  gateway = await startFakeGateway({ dialect: "openai", script: [] });
  expect(await serveFromConfigExample(gateway.url)).toEqual({ name: "inbox-agent", version: "1.2.3" });
});

test("the testkit and createModel examples", async () => {
  expect(await startFakeGatewayExample()).toBe("scripted");
  expect(await createFakeMcpServerExample()).toStartWith("1: ");
  expect(createModelExample()).toEqual(["qwen3", "claude-sonnet-4-5", "gpt-5"]);
});
