/**
 * `agentd serve --http 127.0.0.1:0 --a2a` as a real process: the official `@a2a-js/sdk` client discovers
 * its card and runs a task through it (the model a fake OpenAI-compatible gateway); `--a2a` without an
 * HTTP listener is one line, exit 2.
 */
import { afterEach, expect, test } from "bun:test";
import { ClientFactory } from "@a2a-js/sdk/client";
import { Role, TaskState } from "@a2a-js/sdk";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { startAgentd, stopAll } from "./__fixtures__/agentd-process.ts";
import { modelEnv } from "./__fixtures__/scripts.ts";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await stopAll();
  await gateway?.close();
  ws?.cleanup();
  ws = undefined;
  gateway = undefined;
});

test("the official A2A client discovers agentd's card and gets a task done", async () => {
  ws = new CliWorkspace();
  gateway = await startFakeGateway({ dialect: "openai", onExhausted: "repeat-last", script: [{ text: "done by agentd" }] });
  const agentd = startAgentd(["serve", "--http", "127.0.0.1:0", "--a2a"], { cwd: ws.dir, env: modelEnv(gateway) });
  const [listening] = await agentd.waitFor("serve.listening");
  const base = new URL(String(listening!.a2a)).origin;
  const client = await new ClientFactory().createFromUrl(base);
  const card = await client.getAgentCard();
  expect(card.name).toBe("agentd");
  const task = await client.sendMessage({
    message: {
      messageId: "m-1",
      role: Role.ROLE_USER,
      parts: [{ content: { $case: "text", value: "do it" }, metadata: undefined, filename: "", mediaType: "" }],
      contextId: "",
      taskId: "",
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    tenant: "",
    configuration: undefined,
    metadata: undefined,
  });
  if (!("status" in task)) throw new Error("expected a task");
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const text = task.artifacts[0]?.parts[0]?.content;
  expect(text).toEqual({ $case: "text", value: "done by agentd" });
  expect(gateway.requests.at(-1)?.messages.find((m) => m.role === "user")?.text).toBe("do it");
});

test("--a2a without an HTTP listener is one line, exit 2", async () => {
  ws = new CliWorkspace();
  const run = await ws.run(["serve", "--stdio", "--a2a"], { stdin: "" });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain("--a2a serves on the HTTP listener");
});
