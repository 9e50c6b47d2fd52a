/**
 * Tool calls that wait for a person, end to end: the real `agentd run` against the fake gateway over
 * loopback HTTP and the testkit's fake MCP server over stdio (its record file is the server's own account of
 * what reached it). In a terminal (a private tmux pseudo-terminal) the question shows the tool, its server
 * and its masked arguments, and the person approves or denies it with a reason the model reads; not in a
 * terminal, the call is denied with one stderr line naming the rule and how to answer it elsewhere; without
 * approval rules every call is made as before.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand, type RecordedRequest } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace, events } from "@agentd/test-support/cli-process";
import { TmuxTerminal, tmuxAvailable } from "./__fixtures__/tmux-terminal.ts";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let terminal: TmuxTerminal | undefined;
let fake: FakeServerCommand | undefined;
afterEach(async () => {
  terminal?.kill();
  await gateway?.close();
  fake?.dispose();
  ws?.cleanup();
  terminal = gateway = ws = fake = undefined;
});

const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;
const RULES = { rules: [{ tool: "fs/delete_*", decision: "ask" }] };

/** A workspace whose model deletes one path with a token in its arguments, then reports the tool's answer. */
async function setUp(approvals: Record<string, unknown> | undefined) {
  ws = new CliWorkspace();
  fake = fakeServerCommand({ tools: [{ name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } }] });
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/old", token: "sk-live-abcdef1234567890" } }] }),
      (req) => ({ text: `tool said: ${req.lastToolResult}` }),
    ],
  });
  const config = ws.writeConfig({ mcpServers: { fs: fake.config }, ...(approvals ? { approvals } : {}) });
  const env = { AGENT_INTELLIGENCE: gateway.url, AGENT_DIALECT: "openai", AGENT_MODEL: "m", AGENT_API_KEY: "k" };
  return { config, env };
}

const serverCalls = () => (fake?.recordedRequests() ?? []).filter((r) => r.method === "tools/call");

describe("not in a terminal", () => {
  test("a call the rules hold is denied with one stderr line; it never reaches the server; the model is told", async () => {
    const { config, env } = await setUp(RULES);
    const run = await ws!.run(["run", "--config", config, "clean up"], { env });
    expect(run.code).toBe(0);
    const lines = run.stderr.split("\n").filter((l) => l.includes("needs a person's approval"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('fs/delete_file needs a person\'s approval (approvals.rules[0] (tool "fs/delete_*" → ask))');
    expect(lines[0]).toContain("Run agentd run in a terminal to answer it");
    expect(serverCalls()).toEqual([]);
    expect(run.stdout).toContain("tool said:");
    expect(run.stdout).toContain('the call to "fs/delete_file" was denied');
    // Telemetry: the question and the decision, with who decided; the token never appears.
    const ev = events(run);
    expect(ev.find((e) => e.event === "approval.requested")).toMatchObject({ qualifiedName: "fs/delete_file", server: "fs" });
    expect(ev.find((e) => e.event === "approval.decided")).toMatchObject({ decision: "deny", by: "agentd run" });
    expect(run.stderr).not.toContain("sk-live-abcdef1234567890");
  }, 60_000);

  test("without approval rules the call is made, as before", async () => {
    const { config, env } = await setUp(undefined);
    const run = await ws!.run(["run", "--config", config, "clean up"], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("approval");
    expect(serverCalls().map((r) => (r.params as { arguments: { path: string } }).arguments.path)).toEqual(["/srv/old"]);
    expect(run.stdout).toContain("deleted /srv/old");
  }, 60_000);
});

describe("in a terminal", () => {
  async function inTerminal() {
    const { config, env } = await setUp(RULES);
    const stdoutFile = join(ws!.dir, "stdout.txt");
    terminal = new TmuxTerminal([process.execPath, CLI_MAIN, "run", "--config", config, "clean up"], {
      cwd: ws!.dir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
        TERM: "xterm-256color",
        ...env,
      },
      stdoutFile,
    });
    const question = await terminal.waitForScreen((s) => s.includes("Always for this run"));
    return { question, stdout: () => readFileSync(stdoutFile, "utf8") };
  }

  test.skipIf(!tmuxAvailable)(
    "the question shows the tool, its server and masked arguments; approving makes the call",
    async () => {
      const { question, stdout } = await inTerminal();
      expect(question).toContain("Allow tool delete_file of server fs?");
      expect(question).toContain('"path": "/srv/old"');
      expect(question).not.toContain("sk-live-abcdef1234567890");
      expect(question).toContain('approvals.rules[0] (tool "fs/delete_*" → ask)');
      // The live status line stepped aside while the question is asked.
      expect(question).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] (turn \d|starting)/);
      // The first option (Approve) is selected.
      terminal!.press("Enter");
      expect(await terminal!.exited()).toBe(0);
      expect(serverCalls().map((r) => (r.params as { arguments: { path: string } }).arguments.path)).toEqual(["/srv/old"]);
      expect(stdout()).toContain("deleted /srv/old");
    },
    90_000,
  );

  test.skipIf(!tmuxAvailable)(
    "denying with a reason: the call never reaches the server and the model reads the reason",
    async () => {
      await inTerminal();
      terminal!.press("Down");
      await terminal!.waitForScreen((s) => /[●>] Deny/.test(s) || s.includes("● Deny"));
      terminal!.press("Enter");
      await terminal!.waitForScreen((s) => s.includes("Reason"));
      terminal!.type("keep the archive");
      terminal!.press("Enter");
      expect(await terminal!.exited()).toBe(0);
      expect(serverCalls()).toEqual([]);
      const answer = readFileSync(join(ws!.dir, "stdout.txt"), "utf8");
      expect(answer).toContain('the call to "fs/delete_file" was denied');
      expect(answer).toContain("keep the archive");
    },
    90_000,
  );
});
