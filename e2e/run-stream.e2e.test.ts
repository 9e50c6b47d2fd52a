/**
 * Watching a run, end to end with the real `agentd run` against the fake gateway over loopback HTTP and a
 * recording MCP server over stdio: `--stream` prints the SDK stream's events as JSON lines ending with the
 * `--json` document as `finish`; tool arguments stay masked at debug level and in the stream; piped, no
 * status line is drawn; on a terminal (a tmux pseudo-terminal, every byte recorded) the live status line
 * shows the turn and the tool call in flight with its arguments and duration, and is gone with NO_COLOR
 * or --quiet.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeGateway, type Dialect, type FakeGateway, type RecordedRequest } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace, events } from "@agentd/test-support/cli-process";
import { TmuxTerminal, tmuxAvailable } from "./__fixtures__/tmux-terminal.ts";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let terminal: TmuxTerminal | undefined;
afterEach(async () => {
  terminal?.kill();
  await gateway?.close();
  ws?.cleanup();
  terminal = gateway = ws = undefined;
});

const modelEnv = (g: FakeGateway, dialect: Dialect) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: dialect,
  AGENT_MODEL: "test-model",
  AGENT_API_KEY: "k",
});
const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;
/** The status line starts with a spinner frame: telemetry lines never do. */
const STATUS = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] (turn \d|starting)/;
const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, any>);

/** A workspace with the recording server and a gateway playing: echo, then an answer. */
async function echoRun(dialect: Dialect, args: string[], env: Record<string, string> = {}) {
  ws ??= new CliWorkspace();
  gateway = await startFakeGateway({
    dialect,
    script: [
      (req) => ({ reasoning: "Echo first.", toolCalls: [{ name: tool(req, "echo"), arguments: { text: "hello stream" } }] }),
      (req) => ({ text: `The tool said ${req.lastToolResult?.match(/echo: [a-z ]+/)?.[0]}` }),
    ],
  });
  const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
  const run = await ws.run(["run", "--config", config, ...args, "Echo through the tool"], {
    env: { ...modelEnv(gateway, dialect), RUN_ID: "run-stream-1", ...env },
  });
  await gateway.close();
  return run;
}

describe.each(["openai", "anthropic", "gemini"] as const)("agentd run --stream over %s", (dialect) => {
  test("one JSON event a line, as the SDK yields them, ending with the --json document as finish", async () => {
    const run = await echoRun(dialect, ["--stream"]);
    expect(run.code).toBe(0);
    const out = lines(run.stdout);
    const types = out.map((e) => e.type);
    expect(types[0]).toBe("run-start");
    expect(types.at(-1)).toBe("finish");
    for (const t of ["model-start", "text-delta", "model-end", "tool-call-start", "tool-call-end"]) expect(types).toContain(t);
    expect(out.every((e) => e.runId === "run-stream-1")).toBe(true);
    expect(out.find((e) => e.type === "tool-call-start")).toMatchObject({ qualifiedName: "rec/echo", arguments: { text: "hello stream" } });
    expect(out.find((e) => e.type === "tool-call-end")).toMatchObject({
      qualifiedName: "rec/echo",
      isError: false,
      summary: "echo: hello stream",
    });
    const text = out.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
    expect(text).toBe("The tool said echo: hello stream");
    expect(out.at(-1)).toMatchObject({ type: "finish", status: "ok", text, exitCode: 0, turns: 2, toolCalls: 1 });

    // The same run with --json prints the finish without `type`: the same fields.
    const json = await echoRun(dialect, ["--json"]);
    const doc = JSON.parse(json.stdout);
    const { type: _type, ...finish } = out.at(-1)!;
    expect(Object.keys(doc).sort()).toEqual(Object.keys(finish).sort());
    expect(doc).toMatchObject({ status: "ok", text, exitCode: 0, turns: 2, toolCalls: 1 });
  });
});

describe("agentd run --stream", () => {
  test("--output-format stream-json is the same; a failure ends with finish and its exit code", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "I won't", finishReason: "content_filter" }] });
    const run = await ws.run(["run", "--output-format", "stream-json", "hi"], { env: modelEnv(gateway, "openai") });
    expect(run.code).toBe(1);
    const out = lines(run.stdout);
    expect(out.map((e) => e.type)).toEqual(["run-start", "model-start", "text-delta", "text-delta", "text-delta", "model-end", "finish"]);
    expect(out.at(-1)).toMatchObject({ status: "failed", error: { code: "E_RUN_FAILED", reason: "content-filter" }, exitCode: 1 });
  });

  test("piped stderr: telemetry lines only, no status line drawn", async () => {
    const run = await echoRun("openai", ["--stream"], { AGENT_LOG_FORMAT: "pretty" });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("tool.call.start");
    expect(run.stderr).not.toContain("\r");
    expect(run.stderr).not.toContain("\x1b[2K");
    expect(run.stderr).not.toMatch(STATUS);
  });

  test("tool arguments stay masked: in the stream, and in the debug-level telemetry", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) => ({
          toolCalls: [
            {
              name: tool(req, "echo"),
              arguments: { text: "Authorization: Bearer abcdefghijklmnopqrstuvwx", apiKey: "sk-live-abcdefghijklmnop" },
            },
          ],
        }),
        { text: "done" },
      ],
    });
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const run = await ws.run(["run", "--config", config, "--stream", "use the key"], {
      env: { ...modelEnv(gateway, "openai"), AGENT_LOG_LEVEL: "debug" },
    });
    expect(run.code).toBe(0);
    // The tool got the real arguments; nothing printed carries them.
    expect(JSON.stringify(ws.received())).toContain("sk-live-abcdefghijklmnop");
    for (const secret of ["sk-live-abcdefghijklmnop", "abcdefghijklmnopqrstuvwx"]) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
    }
    const debug = events(run).find((e) => e.event === "tool.call.start.arguments");
    expect(debug).toMatchObject({ level: "debug", arguments: { apiKey: "[redacted]", text: "Authorization: Bearer [redacted]" } });
    expect(lines(run.stdout).find((e) => e.type === "tool-call-start")?.arguments).toEqual({
      apiKey: "[redacted]",
      text: "Authorization: Bearer [redacted]",
    });
  });

  test("--stream watches one run: refused with a mode flag, and beside --json", async () => {
    ws = new CliWorkspace();
    const env = { AGENT_INTELLIGENCE: "http://127.0.0.1:9/v1", AGENT_MODEL: "m" };
    const withMode = await ws.run(["run", "--stream", "--interval", "5m", "hi"], { env });
    expect(withMode.code).toBe(2);
    expect(withMode.stderr).toContain("--stream");
    const both = await ws.run(["run", "--stream", "--json", "hi"], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("choose one output format");
    const bad = await ws.run(["run", "--output-format", "yaml", "hi"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--output-format expects text, json or stream-json");
  });
});

describe("the live status line on a terminal", () => {
  /** Run a slow tool call in a terminal, recording every byte written to it. */
  async function inTerminal(extraEnv: Record<string, string>, extraArgs: string[], watch: boolean) {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [(req) => ({ toolCalls: [{ name: tool(req, "slow"), arguments: { ms: 3000 } }] }), { text: "done" }],
    });
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const recordFile = join(ws.dir, "terminal.log");
    const stdoutFile = join(ws.dir, "stdout.txt");
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
      TERM: "xterm-256color",
      ...modelEnv(gateway, "openai"),
      ...extraEnv,
    };
    terminal = new TmuxTerminal([process.execPath, CLI_MAIN, "run", "--config", config, ...extraArgs, "be slow"], {
      cwd: ws.dir,
      env,
      stdoutFile,
      recordFile,
    });
    const live = watch ? await terminal.waitForScreen((s) => /turn 1 · rec\/slow \{"ms":3000\} \d/.test(s)) : undefined;
    expect(await terminal.exited()).toBe(0);
    return { live, screen: terminal.screen(), recorded: readFileSync(recordFile, "utf8"), stdout: readFileSync(stdoutFile, "utf8") };
  }

  test.skipIf(!tmuxAvailable)(
    "shows the turn and the tool call in flight with its arguments and duration, then is gone",
    async () => {
      const { live, screen, recorded, stdout } = await inTerminal({}, [], true);
      expect(live).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] turn 1 · rec\/slow \{"ms":3000\} \d+(ms|\.\ds)/);
      expect(recorded).toContain("\x1b[2K");
      expect(recorded).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] turn \d · model (thinking|streaming)/);
      expect(screen).not.toMatch(STATUS);
      expect(stdout).toBe("done\n");
    },
    60_000,
  );

  for (const [what, env, args] of [
    ["NO_COLOR", { NO_COLOR: "1" }, []],
    ["--quiet", {}, ["--quiet"]],
  ] as const)
    test.skipIf(!tmuxAvailable)(
      `is never drawn with ${what}`,
      async () => {
        const { recorded, stdout } = await inTerminal(env, [...args], false);
        expect(stdout).toBe("done\n");
        expect(recorded).not.toContain("\x1b[2K");
        expect(recorded).not.toMatch(STATUS);
        if (what === "NO_COLOR") expect(recorded).toContain("tool.call.start");
      },
      60_000,
    );
});

describe("the answer on a terminal", () => {
  test.skipIf(!tmuxAvailable)(
    "is written as the model streams it: text before a slow tool call shows while the tool runs; the answer is printed once",
    async () => {
      ws = new CliWorkspace();
      gateway = await startFakeGateway({
        dialect: "openai",
        script: [
          (req) => ({ text: "Let me look that up first.", toolCalls: [{ name: tool(req, "slow"), arguments: { ms: 30_000 } }] }),
          { text: "Found it." },
        ],
      });
      const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
      const env = {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
        TERM: "xterm-256color",
        ...modelEnv(gateway, "openai"),
      };
      terminal = new TmuxTerminal([process.execPath, CLI_MAIN, "run", "--config", config, "--quiet", "look it up"], { cwd: ws.dir, env });
      let exited = false;
      void terminal.exited().then(() => (exited = true));
      // The first turn's text is on the terminal while the 30 s tool is still running.
      await terminal.waitForScreen((s) => s.includes("Let me look that up first."));
      expect(exited).toBe(false);
      // Ctrl-C twice: stop now rather than wait for the slow tool.
      terminal.press("C-c");
      terminal.press("C-c");
      expect(await terminal.exited()).toBe(130);
    },
    60_000,
  );

  test.skipIf(!tmuxAvailable)(
    "the final answer streamed on the terminal is not printed a second time",
    async () => {
      ws = new CliWorkspace();
      gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "The one and only answer." }] });
      const env = {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
        TERM: "xterm-256color",
        ...modelEnv(gateway, "openai"),
      };
      terminal = new TmuxTerminal([process.execPath, CLI_MAIN, "run", "--quiet", "answer"], { cwd: ws.dir, env });
      expect(await terminal.exited()).toBe(0);
      const screen = terminal.screen();
      expect(screen.split("The one and only answer.").length - 1).toBe(1);
    },
    60_000,
  );
});
