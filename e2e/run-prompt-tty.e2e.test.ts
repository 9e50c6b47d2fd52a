/**
 * `agentd run --prompt` in a real terminal (a tmux pseudo-terminal, no mocks) against server-everything's
 * `completable-prompt`: the missing required arguments are asked for with @clack/prompts, the first with the
 * server's completions narrowed by typing, the second with completions the server computed from the first
 * answer (`context.arguments`), where a value outside the list is taken as typed; the run then gets the
 * expanded prompt as its instruction and prints its answer on stdout.
 */
import { afterEach, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace, REPO_ROOT } from "@agentd/test-support/cli-process";
import { TmuxTerminal, tmuxAvailable } from "./__fixtures__/tmux-terminal.ts";

const EVERYTHING = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let terminal: TmuxTerminal | undefined;
afterEach(async () => {
  terminal?.kill();
  await gateway?.close();
  ws?.cleanup();
  terminal = gateway = ws = undefined;
});

test.skipIf(!tmuxAvailable)(
  "in a terminal, missing prompt arguments are asked for with the server's completions",
  async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "promoted" }] });
    const config = ws.writeConfig({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } });
    const stdoutFile = join(ws.dir, "stdout.txt");
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
      TERM: "xterm-256color",
      AGENT_INTELLIGENCE: gateway.url,
      AGENT_DIALECT: "openai",
      AGENT_MODEL: "m",
      AGENT_API_KEY: "k",
    };
    terminal = new TmuxTerminal([process.execPath, CLI_MAIN, "run", "--config", config, "--prompt", "everything/completable-prompt"], {
      cwd: ws.dir,
      env,
      stdoutFile,
    });

    // The first question lists every department the server completes for an empty prefix.
    const first = await terminal.waitForScreen((s) => s.includes("department") && s.includes("Support"));
    for (const d of ["Engineering", "Sales", "Marketing", "Support"]) expect(first).toContain(d);
    terminal.type("Sa");
    const narrowed = await terminal.waitForScreen((s) => s.includes("Sa█") || /Search: Sa\b/.test(s));
    expect(narrowed).toContain("Sales");
    expect(narrowed).not.toContain("Engineering");
    terminal.press("Enter");

    // The second: the server's names for Sales (context.arguments carried the first answer).
    const second = await terminal.waitForScreen((s) => s.includes("Choose a team member") && s.includes("Frank"));
    for (const n of ["David", "Eve", "Frank"]) expect(second).toContain(n);
    expect(second).not.toContain("Alice");
    terminal.type("Zed");
    await terminal.waitForScreen((s) => s.includes("Zed (as typed)"));
    terminal.press("Enter");

    expect(await terminal.exited()).toBe(0);
    expect(readFileSync(stdoutFile, "utf8")).toBe("promoted\n");
    const user = gateway.requests[0]!.messages.filter((m) => m.role === "user")
      .map((m) => m.text)
      .join("\n");
    expect(user).toContain("Please promote Zed to the head of the Sales team.");
  },
  90_000,
);

test.skipIf(!tmuxAvailable)(
  "in a terminal, an argument without completions is a text question; Escape cancels without running",
  async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "sunny" }] });
    const config = ws.writeConfig({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } });
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
      TERM: "xterm-256color",
      AGENT_INTELLIGENCE: gateway.url,
      AGENT_DIALECT: "openai",
      AGENT_MODEL: "m",
      AGENT_API_KEY: "k",
    };
    const argv = [process.execPath, CLI_MAIN, "run", "--config", config, "--prompt", "everything/args-prompt"];

    terminal = new TmuxTerminal(argv, { cwd: ws.dir, env, stdoutFile: join(ws.dir, "cancelled.txt") });
    await terminal.waitForScreen((s) => s.includes("everything/args-prompt: city"));
    terminal.press("Escape");
    expect(await terminal.exited()).toBe(2);
    expect(await terminal.waitForScreen((s) => s.includes("cancelled: prompt everything/args-prompt was not run"))).toBeString();
    expect(gateway.requests.length).toBe(0);
    terminal.kill();

    const stdoutFile = join(ws.dir, "stdout.txt");
    terminal = new TmuxTerminal(argv, { cwd: ws.dir, env, stdoutFile });
    const question = await terminal.waitForScreen((s) => s.includes("everything/args-prompt: city"));
    // server-everything completes nothing for city: a plain text question, no list.
    expect(question).not.toContain("type to narrow the list");
    terminal.type("Oslo");
    terminal.press("Enter");
    expect(await terminal.exited()).toBe(0);
    expect(readFileSync(stdoutFile, "utf8")).toBe("sunny\n");
    const user = gateway.requests[0]!.messages.filter((m) => m.role === "user")
      .map((m) => m.text)
      .join("\n");
    expect(user).toContain("What's weather in Oslo?");
  },
  90_000,
);
