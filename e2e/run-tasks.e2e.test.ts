/**
 * `agentd run` with tasks on, as the client of a task server we did not write: the official
 * `@modelcontextprotocol/server-everything`'s `simulate-research-query` (taskSupport "required") over
 * stdio. The ambiguous query moves the task to `input_required` and asks for clarification with
 * `elicitation/create` on the `tasks/result` stream: agentd answers through its configured elicitation
 * policy ("decline") and the task completes with that answer in its report.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { startFakeGateway, type FakeGateway, type RecordedRequest } from "@agentd/testkit";
import { CliWorkspace, events, REPO_ROOT } from "@agentd/test-support/cli-process";

const EVERYTHING = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  ws?.cleanup();
  ws = undefined;
});

const toolLike = (req: RecordedRequest, suffix: string) => {
  const t = req.tools.find((n) => n.endsWith(suffix));
  if (!t) throw new Error(`no tool ending with ${suffix} in ${req.tools.join(",")}`);
  return t;
};

const modelEnv = (g: FakeGateway) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: "openai",
  AGENT_MODEL: "test-model",
  AGENT_API_KEY: "sk-test",
});

describe("agentd run calls a task-required tool of server-everything", () => {
  test("input_required is serviced by the elicitation policy, then the task completes", async () => {
    ws = new CliWorkspace();
    let offered: string[] = [];
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) => {
          offered = req.tools;
          return { toolCalls: [{ name: toolLike(req, "simulate-research-query"), arguments: { topic: "python", ambiguous: true } }] };
        },
        (req) => ({
          text: req.lastToolResult?.includes("User declined - using default interpretation")
            ? "declined and completed"
            : `unexpected: ${req.lastToolResult}`,
        }),
      ],
    });
    const config = ws.writeConfig({
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
      capabilities: { tasks: true, elicitation: "decline" },
    });
    const run = await ws.run(["run", "--config", config, "--json", "Research python"], { env: modelEnv(gateway) });
    expect(run.code).toBe(0);
    expect(offered.some((n) => n.endsWith("simulate-research-query"))).toBe(true);
    const out = JSON.parse(run.stdout);
    expect(out.text).toBe("declined and completed");
    expect(events(run).map((e) => e.event)).toContain("run.end");
  }, 60_000);

  test("tasks off: the task-required tool is not offered to the model", async () => {
    ws = new CliWorkspace();
    let offered: string[] = [];
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) => {
          offered = req.tools;
          return { text: "nothing to do" };
        },
      ],
    });
    const config = ws.writeConfig({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } });
    const run = await ws.run(["run", "--config", config, "Research python"], { env: modelEnv(gateway) });
    expect(run.code).toBe(0);
    expect(offered.some((n) => n.endsWith("echo"))).toBe(true);
    expect(offered.some((n) => n.endsWith("simulate-research-query"))).toBe(false);
  }, 60_000);
});
