/**
 * Subagents end to end: a real `agentd run` (bun + main.ts) whose model, a fake gateway on loopback, calls
 * the self-tools; the children are real `agentd __subagent` processes of the same program, each with its
 * own MCP connections. One gateway serves the whole tree: each turn is chosen by whose conversation it is
 * (the first user message) and how far it got (assistant messages so far). Every process of a test carries
 * a tag in its environment, so the test finds the whole tree (orphans included) and cleans it up.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startFakeGateway, type FakeGateway, type RecordedRequest, type StaticTurn } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace, events } from "@agentd/test-support/cli-process";
import { killTagged, newTag, TAG_ENV, tagged, taggedSurvivors } from "./__fixtures__/subagent/tree.ts";

const CRASH_SERVER = resolve(import.meta.dir, "__fixtures__/subagent/crash-server.ts");

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let tag = newTag();

afterEach(async () => {
  killTagged(tag);
  await gateway?.close();
  ws?.cleanup();
  ws = gateway = undefined;
  tag = newTag();
});

type Route = (req: RecordedRequest, step: number) => StaticTurn;

/** One gateway for the tree: route by the conversation's first user message prefix. */
async function treeGateway(routes: Record<string, Route>): Promise<FakeGateway> {
  gateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [
      (req) => {
        const user = req.messages.find((m) => m.role === "user")?.text ?? "";
        const step = req.messages.filter((m) => m.role === "assistant").length;
        const key = Object.keys(routes).find((k) => user.startsWith(k));
        if (!key) return { text: `no route for: ${user.slice(0, 80)}` };
        return (routes[key] as Route)(req, step);
      },
    ],
  });
  return gateway;
}

const tool = (req: RecordedRequest, suffix: string): string => {
  const t = req.tools.find((n) => n.endsWith(suffix));
  if (!t) throw new Error(`no tool ending with ${suffix} in ${req.tools.join(",")}`);
  return t;
};
const spawnedId = (req: RecordedRequest): string =>
  /Started subagent (sa-[0-9a-f]+)/.exec(JSON.stringify(req.messages))?.[1] ?? "sa-missing";
/** Tool output without the loop's untrusted-data fences (nested fences are escaped: undo that too). */
const unfence = (s: string | undefined): string =>
  (s ?? "")
    .replaceAll("&lt;", "<")
    .replace(/<\/?tool-output[^>]*>\n?/g, "")
    .replace(/^Error: /gm, "")
    .trim();
const last = (req: RecordedRequest): string => unfence(req.lastToolResult);
const allToolResults = (req: RecordedRequest): string =>
  req.messages.flatMap((m) => m.toolResults.map((r) => unfence(r.content))).join("\n");

const env = (g: FakeGateway) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: "openai",
  AGENT_MODEL: "test-model",
  AGENT_API_KEY: "sk-tree-secret",
  [TAG_ENV]: tag,
});
const rec = (w: CliWorkspace) => ({ ...w.recordingServer(), env: { [TAG_ENV]: tag } });

describe("agentd run with subagents", () => {
  test("a depth-2 tree: the root spawns async, waits on the result resource, and finishes with it; usage adds up", async () => {
    ws = new CliWorkspace();
    const g = await treeGateway({
      "Plan the trip": (req, step) =>
        step === 0
          ? {
              toolCalls: [
                {
                  name: tool(req, "subagent_spawn"),
                  arguments: { instruction: "CHILD: find a hotel", async: true, seed: { city: "Lisbon" } },
                },
              ],
              usage: { input: 100, output: 10 },
            }
          : step === 1
            ? { toolCalls: [{ name: tool(req, "subagent_wait"), arguments: { id: spawnedId(req) } }], usage: { input: 100, output: 10 } }
            : { text: `ROOT FINAL: ${last(req)}`, usage: { input: 100, output: 10 } },
      "CHILD:": (req, step) =>
        step === 0
          ? {
              toolCalls: [
                {
                  name: tool(req, "subagent_spawn"),
                  arguments: {
                    instruction: `GRANDCHILD: price in ${req.messages.find((m) => m.role === "user")?.text.includes('"Lisbon"') ? "Lisbon" : "?"}`,
                  },
                },
              ],
              usage: { input: 50, output: 5 },
            }
          : { text: `child saw ${last(req).match(/grand result \w+/)?.[0]}`, usage: { input: 50, output: 5 } },
      "GRANDCHILD:": (req) => ({
        text: `grand result ${req.messages
          .find((m) => m.role === "user")
          ?.text.split(" ")
          .at(-1)}`,
        usage: { input: 20, output: 2 },
      }),
    });
    const config = ws.writeConfig({ mcpServers: { rec: rec(ws) }, subagents: { maxDepth: 2 } });
    const run = await ws.run(["run", "--config", config, "--json", "Plan the trip"], { env: env(g) });
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.text).toContain("ROOT FINAL: child saw grand result Lisbon");
    // The root's three turns, the child's two, the grandchild's one: the child's usage counts against its
    // parent, all the way up.
    expect(out.usage.inputTokens).toBe(300 + 100 + 20);
    expect(out.usage.outputTokens).toBe(30 + 10 + 2);
    // The wait read the result resource: its id and URI are in what the model saw.
    const rootLast = g.requests.filter((r) => r.messages[1]?.text.startsWith("Plan the trip")).at(-1) as RecordedRequest;
    expect(rootLast.lastToolResult).toContain("child saw grand result Lisbon");
    const names = events(run).map((e) => e.event);
    expect(names.filter((n) => n === "subagent.spawn")).toHaveLength(2);
    // Telemetry of the whole tree reaches the root's stderr, one JSON object a line; the key never does.
    expect(events(run).some((e) => e.subagent && e.depth === 2 && e.event === "run.end")).toBe(true);
    expect(run.stderr).not.toContain("sk-tree-secret");
    // The children had the key (the gateway saw credentials on every request) without it in any message.
    expect(g.requests.every((r) => r.hasAuth)).toBe(true);
    expect(await taggedSurvivors(tag)).toEqual([]);
  }, 60_000);

  test("a child that crashes on its first attempt is restarted with the same run id and succeeds", async () => {
    ws = new CliWorkspace();
    const g = await treeGateway({
      "Delegate the crashy job": (req, step) =>
        step === 0
          ? { toolCalls: [{ name: tool(req, "subagent_spawn"), arguments: { instruction: "CRASHY: call the crash tool" } }] }
          : { text: `ROOT: ${last(req)}` },
      "CRASHY:": (req, step) =>
        step === 0 ? { toolCalls: [{ name: tool(req, "crash"), arguments: {} }] } : { text: `child: ${last(req)}` },
    });
    const config = ws.writeConfig({
      mcpServers: { crashy: { command: process.execPath, args: [CRASH_SERVER, "once", ws.dir], env: { [TAG_ENV]: tag } } },
      subagents: { maxRestarts: 2 },
    });
    const run = await ws.run(["run", "--config", config, "Delegate the crashy job"], { env: env(g) });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("ROOT: child: survived\n");
    const calls = readFileSync(join(ws.dir, "calls.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(calls).toHaveLength(2);
    // Two different processes, one idempotency run id: the retry can tell it is a retry.
    expect(calls[0].pid).not.toBe(calls[1].pid);
    expect(calls[0].runId).toBe(calls[1].runId);
    expect(calls[0].runId).toMatch(/\.sa-[0-9a-f]+$/);
    const crash = events(run).find((e) => e.event === "subagent.crash");
    expect(crash?.reason).toContain("killed by signal SIGKILL");
    expect(events(run).some((e) => e.event === "subagent.restart" && e.attempt === 2)).toBe(true);
    expect(await taggedSurvivors(tag)).toEqual([]);
  }, 60_000);

  test("a child's run is a Run like every other: starting → running → finished, under the run id its parent gave it", async () => {
    ws = new CliWorkspace();
    const g = await treeGateway({
      "Ask a helper": (req, step) =>
        step === 0
          ? { toolCalls: [{ name: tool(req, "subagent_spawn"), arguments: { instruction: "HELPER: say hi" } }] }
          : { text: `ROOT: ${last(req)}` },
      "HELPER:": () => ({ text: "hi from the helper" }),
    });
    const config = ws.writeConfig({ subagents: { maxDepth: 1 } });
    const run = await ws.run(["run", "--config", config, "Ask a helper"], { env: { ...env(g), AGENT_LOG_LEVEL: "debug" } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("hi from the helper");
    // The child's records carry `subagent`; its run's moves are recorded by the Run's one transition method.
    const moves = events(run).filter((e) => e.subagent && e.event === "run.state");
    expect(moves.map((e) => [e.from, e.to, e.outcome])).toEqual([
      ["starting", "running", undefined],
      ["running", "finished", "ok"],
    ]);
    expect(moves[0]?.runId).toMatch(/\.sa-[0-9a-f]+$/);
    expect(await taggedSurvivors(tag)).toEqual([]);
  }, 60_000);

  test("a child that always crashes is failed after the bound, and the model is told why", async () => {
    ws = new CliWorkspace();
    const g = await treeGateway({
      "Try the doomed job": (req, step) =>
        step === 0
          ? { toolCalls: [{ name: tool(req, "subagent_spawn"), arguments: { instruction: "DOOMED: call the crash tool" } }] }
          : { text: `ROOT: ${last(req)}` },
      "DOOMED:": (req) => ({ toolCalls: [{ name: tool(req, "crash"), arguments: {} }] }),
    });
    const config = ws.writeConfig({
      mcpServers: { crashy: { command: process.execPath, args: [CRASH_SERVER, "always", ws.dir], env: { [TAG_ENV]: tag } } },
      subagents: { maxRestarts: 1 },
    });
    const run = await ws.run(["run", "--config", config, "Try the doomed job"], { env: env(g) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "failed (crashed, E_SUPERVISOR): the subagent crashed 2 time(s) (1 restart(s) allowed); last: killed by signal SIGKILL",
    );
    expect(readFileSync(join(ws.dir, "calls.jsonl"), "utf8").trim().split("\n")).toHaveLength(2);
    expect(await taggedSurvivors(tag)).toEqual([]);
  }, 60_000);

  test("a child over its token budget is stopped and reported limit-exceeded; its usage is in the parent's", async () => {
    ws = new CliWorkspace();
    const g = await treeGateway({
      "Run the hungry job": (req, step) =>
        step === 0
          ? {
              toolCalls: [
                { name: tool(req, "subagent_spawn"), arguments: { instruction: "HUNGRY: think hard", limits: { maxTokens: 1000 } } },
              ],
              usage: { input: 10, output: 1 },
            }
          : { text: `ROOT: ${last(req)}`, usage: { input: 10, output: 1 } },
      "HUNGRY:": (req) => ({ toolCalls: [{ name: tool(req, "subagent_list"), arguments: {} }], usage: { input: 5000, output: 100 } }),
    });
    const config = ws.writeConfig({ subagents: { maxChildren: 2 } });
    const run = await ws.run(["run", "--config", config, "--json", "Run the hungry job"], { env: env(g) });
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.text).toContain("failed (limit-exceeded, E_BUDGET_TOKENS)");
    expect(out.text).toContain("It used 5100 tokens");
    expect(out.usage.inputTokens).toBe(5020);
    expect(out.usage.outputTokens).toBe(102);
    // The child stopped after its one over-budget turn.
    expect(g.requests.filter((r) => r.messages.find((m) => m.role === "user")?.text.startsWith("HUNGRY"))).toHaveLength(1);
    expect(await taggedSurvivors(tag)).toEqual([]);
  }, 60_000);

  test("depth and fan-out past the maximum are tool-domain errors the models read", async () => {
    ws = new CliWorkspace();
    const g = await treeGateway({
      "Fan out": (req, step) =>
        step === 0
          ? {
              toolCalls: [
                { name: tool(req, "subagent_spawn"), arguments: { instruction: "DEEP: try to go deeper", async: true } },
                { name: tool(req, "subagent_spawn"), arguments: { instruction: "SECOND: one too many", async: true } },
              ],
            }
          : step === 1
            ? { toolCalls: [{ name: tool(req, "subagent_wait"), arguments: { id: spawnedId(req) } }] }
            : { text: `REPORT\n${allToolResults(req)}` },
      "DEEP:": (req, step) =>
        step === 0
          ? { toolCalls: [{ name: tool(req, "subagent_spawn"), arguments: { instruction: "TOO DEEP" } }] }
          : { text: `deep child: ${last(req)}` },
    });
    const config = ws.writeConfig({ subagents: { maxDepth: 1, maxChildren: 1 } });
    const run = await ws.run(["run", "--config", config, "Fan out"], { env: env(g) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("subagent refused: 1 of at most 1 subagents are still running");
    expect(run.stdout).toContain("deep child: subagent refused: the maximum depth is 1 and this agent is at depth 1");
    expect(g.requests.some((r) => r.messages.find((m) => m.role === "user")?.text.startsWith("TOO DEEP"))).toBe(false);
    expect(await taggedSurvivors(tag)).toEqual([]);
  }, 60_000);

  test("SIGTERM of the root mid-tree drains it: exit 143 and no process left behind", async () => {
    ws = new CliWorkspace();
    let grandchildAsked!: () => void;
    const stalled = new Promise<void>((r) => (grandchildAsked = r));
    const g = await treeGateway({
      "Start a long job": (req, step) =>
        step === 0
          ? { toolCalls: [{ name: tool(req, "subagent_spawn"), arguments: { instruction: "LONG: delegate further", async: true } }] }
          : { toolCalls: [{ name: tool(req, "subagent_wait"), arguments: { id: spawnedId(req) } }] },
      "LONG:": (req) => ({ toolCalls: [{ name: tool(req, "subagent_spawn"), arguments: { instruction: "STALL: wait forever" } }] }),
      "STALL:": () => {
        grandchildAsked();
        return { fault: "stall" };
      },
    });
    const config = ws.writeConfig({ mcpServers: { rec: rec(ws) }, subagents: { maxDepth: 3 } });
    const childEnv: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
      AGENT_LOG_FORMAT: "json",
      ...env(g),
    };
    const root = Bun.spawn([process.execPath, CLI_MAIN, "run", "--config", config, "Start a long job"], {
      cwd: ws.dir,
      env: childEnv,
      stdout: "pipe",
      stderr: "pipe",
    });
    const output = Promise.all([new Response(root.stdout).text(), new Response(root.stderr).text()]);
    await stalled;
    // The tree: root, child, grandchild, and an MCP server under each of them.
    const tree = tagged(tag);
    expect(tree).toContain(root.pid);
    expect(tree.length).toBeGreaterThanOrEqual(6);
    root.kill("SIGTERM");
    expect(await root.exited).toBe(143);
    const [, stderr] = await output;
    expect(stderr).toContain("interrupted by SIGTERM");
    expect(await taggedSurvivors(tag, 10_000)).toEqual([]);
  }, 60_000);
});
