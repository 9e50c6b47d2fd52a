/**
 * Approvals through the SDK, against a real MCP server process (the testkit's fake server over stdio, whose
 * record file is the server's own account of what reached it): `createAgent({ approvals: { rules, onAsk } })`
 * approves and denies; a denied call never reaches the server; a rule on the annotations the server declares
 * ("ask unless read-only"); a local tool's `needsApproval`; a run's own `askApproval` before `onAsk`; and no
 * rules at all — every call made, nothing asked.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { fakeServerCommand, type FakeServerCommand } from "@agentd/testkit";
import { callTools, reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import type { ModelRequest } from "../../model/language-model.ts";
import { tool } from "../../tool/tool.ts";
import { createAgent } from "../create-agent.ts";
import { parseConfig } from "../../config/load.ts";
import { createAgentFromConfig } from "../create-agent-from-config.ts";
import type { StandardSchemaV1 } from "../../tool/standard-schema.ts";

setDefaultTimeout(60_000);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server with a destructive tool, a read-only one, and one that declares nothing. */
function server(): FakeServerCommand {
  const fake = fakeServerCommand({
    tools: [
      { name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } },
      { name: "read_file", text: "contents of {{path}}", annotations: { readOnlyHint: true } },
      { name: "touch", text: "touched {{path}}" },
    ],
  });
  cleanups.push(() => fake.dispose());
  return fake;
}

const calledTools = (fake: FakeServerCommand) =>
  fake
    .recordedRequests()
    .filter((r) => r.method === "tools/call")
    .map((r) => `${(r.params as { name: string }).name} ${JSON.stringify((r.params as { arguments?: unknown }).arguments)}`);

const toolOutputs = (request: ModelRequest | undefined) =>
  (request?.messages ?? []).flatMap((m) => (m.role === "tool" ? m.content.map((c) => `${c.isError ? "ERR " : ""}${c.output}`) : []));

describe("approvals through createAgent", () => {
  test("onAsk approves one call and denies another; the denied one never reaches the server", async () => {
    const fake = server();
    const model = scriptedModel([
      callTools([
        ["fs__delete_file", { path: "/tmp/old" }],
        ["fs__delete_file", { path: "/etc" }],
      ]),
      reply("done"),
    ]);
    const asked: ApprovalRequest[] = [];
    const agent = createAgent({
      model,
      mcpServers: { fs: fake.config },
      approvals: {
        rules: [{ tool: "fs/delete_*", decision: "ask" }],
        onAsk: (request) => {
          asked.push(request);
          return request.arguments.path === "/etc"
            ? { decision: "deny", by: "ops", reason: "never /etc" }
            : { decision: "approve", by: "ops" };
        },
      },
    });
    cleanups.push(() => agent.close());
    const result = await agent.run("clean up", { runId: "run-approve" });
    expect(result.text).toBe("done");
    expect(asked.map((r) => [r.server, r.tool, r.arguments.path, r.runId])).toEqual([
      ["fs", "delete_file", "/tmp/old", "run-approve"],
      ["fs", "delete_file", "/etc", "run-approve"],
    ]);
    expect(asked[0]?.annotations).toEqual({ destructiveHint: true });
    // The server's own record: only the approved call arrived.
    expect(calledTools(fake)).toEqual(['delete_file {"path":"/tmp/old"}']);
    const outputs = toolOutputs(model.requests[1]);
    expect(outputs[0]).toContain("deleted /tmp/old");
    expect(outputs[1]).toStartWith("ERR ");
    expect(outputs[1]).toContain("decided by ops): never /etc");
  });

  test("ask unless read-only, keyed on the annotations the server declares", async () => {
    const fake = server();
    const model = scriptedModel([
      callTools([
        ["fs__read_file", { path: "/a" }],
        ["fs__touch", { path: "/b" }],
        ["fs__delete_file", { path: "/c" }],
      ]),
      reply("done"),
    ]);
    const asked: string[] = [];
    const agent = createAgent({
      model,
      mcpServers: { fs: fake.config },
      approvals: {
        rules: [{ annotations: { readOnlyHint: true }, decision: "allow" }, { decision: "ask" }],
        onAsk: (request) => (asked.push(request.name), { decision: "deny" }),
      },
    });
    cleanups.push(() => agent.close());
    await agent.run("look and touch");
    // The read-only tool ran unasked; the one declaring nothing and the destructive one were asked (and denied).
    expect(asked).toEqual(["fs/touch", "fs/delete_file"]);
    expect(calledTools(fake)).toEqual(['read_file {"path":"/a"}']);
  });

  test("no rules: every call is made, nothing is asked (today's behaviour)", async () => {
    const fake = server();
    const model = scriptedModel([callTools([["fs__delete_file", { path: "/x" }]]), reply("done")]);
    let asked = 0;
    const agent = createAgent({ model, mcpServers: { fs: fake.config }, approvals: { onAsk: () => (asked++, { decision: "deny" }) } });
    cleanups.push(() => agent.close());
    const events: string[] = [];
    await agent.run("delete", { onEvent: (e) => events.push(e.type) });
    expect(asked).toBe(0);
    expect(calledTools(fake)).toEqual(['delete_file {"path":"/x"}']);
    expect(events.filter((t) => t.startsWith("approval-"))).toEqual([]);
  });

  test("a run's own askApproval answers before the agent's onAsk", async () => {
    const fake = server();
    const model = scriptedModel([callTools([["fs__delete_file", { path: "/x" }]]), reply("done")]);
    const agent = createAgent({
      model,
      mcpServers: { fs: fake.config },
      approvals: { rules: [{ tool: "fs/*", decision: "ask" }], onAsk: () => ({ decision: "deny", by: "agent" }) },
    });
    cleanups.push(() => agent.close());
    await agent.run("delete", { askApproval: async () => ({ decision: "approve", by: "run" }) });
    expect(calledTools(fake)).toEqual(['delete_file {"path":"/x"}']);
  });
});

describe("approvals from agentd.json", () => {
  test("the rules, the timeout and its decision come from the config; onApproval is asked", async () => {
    const fake = server();
    const config = parseConfig(
      {
        mcpServers: { fs: fake.config },
        approvals: { rules: [{ tool: "fs/delete_*", decision: "ask" }], timeout: "100ms", onTimeout: "deny" },
      },
      {},
    );
    const model = scriptedModel([
      callTools([
        ["fs__delete_file", { path: "/x" }],
        ["fs__touch", { path: "/y" }],
      ]),
      reply("done"),
    ]);
    const asked: string[] = [];
    const agent = createAgentFromConfig(config, {
      model,
      // Never answers: the config's timeout decides.
      onApproval: (request) => (asked.push(request.name), new Promise(() => {})),
    });
    cleanups.push(() => agent.close());
    const decisions: unknown[] = [];
    await agent.run("delete", { onEvent: (e) => e.type === "approval-decided" && decisions.push([e.decision, e.by]) });
    expect(asked).toEqual(["fs/delete_file"]);
    expect(decisions).toEqual([["deny", "timeout"]]);
    expect(calledTools(fake)).toEqual(['touch {"path":"/y"}']);
  });

  test("a rule the schema cannot take is one line naming it", () => {
    expect(() => parseConfig({ approvals: { rules: [{ tool: "x", decision: "maybe" }] } }, {})).toThrow(/approvals\.rules\[0\]\.decision/);
    expect(() => parseConfig({ approvals: { timeout: 30 } }, {})).toThrow(/approvals\.timeout/);
  });
});

/** A tiny Standard Schema validator of `{ path: string }`. */
const pathSchema: StandardSchemaV1<{ path: string }> = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: (v) =>
      typeof (v as { path?: unknown })?.path === "string"
        ? { value: v as { path: string } }
        : { issues: [{ message: "path is required" }] },
  },
};

describe("a local tool's needsApproval", () => {
  function cleanTool(needsApproval: boolean | ((input: { path: string }) => boolean), ran: string[]) {
    return tool({
      name: "clean",
      description: "delete a path",
      parameters: pathSchema,
      jsonSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      needsApproval,
      execute: ({ path }) => (ran.push(path), `cleaned ${path}`),
    });
  }

  test("true: every call is asked; with nobody to ask it is denied and never runs", async () => {
    const ran: string[] = [];
    const model = scriptedModel([callTools([["clean", { path: "/a" }]]), reply("done")]);
    const agent = createAgent({ model, tools: [cleanTool(true, ran)] });
    cleanups.push(() => agent.close());
    await agent.run("clean");
    expect(ran).toEqual([]);
    expect(toolOutputs(model.requests[1])[0]).toContain("none could be asked");
  });

  test("a function of the validated arguments asks only for the calls it says; onAsk decides", async () => {
    const ran: string[] = [];
    const asked: string[] = [];
    const model = scriptedModel([
      callTools([
        ["clean", { path: "/tmp/a" }],
        ["clean", { path: "/home/b" }],
      ]),
      reply("done"),
    ]);
    const agent = createAgent({
      model,
      tools: [cleanTool(({ path }) => !path.startsWith("/tmp/"), ran)],
      approvals: { onAsk: (r) => (asked.push(`${r.tool} ${r.arguments.path} ${r.rule.source}`), { decision: "approve" }) },
    });
    cleanups.push(() => agent.close());
    await agent.run("clean");
    expect(asked).toEqual(["clean /home/b tool"]);
    expect(ran.sort()).toEqual(["/home/b", "/tmp/a"]);
  });
});
