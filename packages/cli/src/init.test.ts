/**
 * `agentd init`: the pure answers → config step, the real CLI in non-interactive mode (`--yes`), the
 * refusals, and once the interactive flow through a real pseudo-terminal (util-linux `script`).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { resolveConfig } from "@agentd/sdk/config";
import { fakeServerCommand, startFakeGateway } from "@agentd/testkit";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CLI_MAIN, CliWorkspace, REPO_ROOT } from "@agentd/test-support/cli-process";
import {
  checkKeyEnv,
  CONFIG_SCHEMA,
  configFromAnswers,
  parseServerFlag,
  schemaRefFor,
  serverEntry,
  splitCommandLine,
} from "./commands/init-config.ts";

const workspaces: CliWorkspace[] = [];
const workspace = () => {
  const ws = new CliWorkspace();
  workspaces.push(ws);
  return ws;
};
afterAll(() => workspaces.forEach((ws) => ws.cleanup()));
const read = (path: string) => JSON.parse(readFileSync(path, "utf8"));

describe("answers → agentd.json", () => {
  test("a full set of answers makes a config the SDK accepts", () => {
    const config = configFromAnswers({
      dialect: "openai",
      intelligence: "http://127.0.0.1:11434/v1",
      model: "qwen3",
      apiKeyEnv: "LOCAL_KEY",
      servers: [
        { name: "fs", target: "npx -y @modelcontextprotocol/server-filesystem /data" },
        { name: "remote", target: "https://tools.example/mcp" },
      ],
    });
    expect(config).toEqual({
      model: { intelligence: "http://127.0.0.1:11434/v1", dialect: "openai", name: "qwen3", apiKeyEnv: "LOCAL_KEY" },
      mcpServers: {
        fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/data"] },
        remote: { url: "https://tools.example/mcp" },
      },
    });
  });

  test("mistakes are one clear line", () => {
    expect(() => configFromAnswers({ dialect: "anthropic", servers: [] })).toThrow(
      "a model name is needed for the anthropic API (--model)",
    );
    expect(() => configFromAnswers({ dialect: "openai", intelligence: "localhost:11434", model: "m", servers: [] })).toThrow(
      "must be an http(s) URL",
    );
    expect(() => configFromAnswers({ dialect: "openai", intelligence: "not a url", model: "m", servers: [] })).toThrow(
      "the model endpoint must be a URL",
    );
    expect(() =>
      configFromAnswers({
        dialect: "openai",
        model: "m",
        servers: [
          { name: "a", target: "x" },
          { name: "a", target: "y" },
        ],
      }),
    ).toThrow("given twice");
  });

  test("an API key typed where its variable's name belongs is refused without repeating it", () => {
    const problem = checkKeyEnv("sk-proj-abc123def456ghi789");
    expect(problem).toContain("looks like an API key");
    expect(problem).not.toContain("abc123");
    expect(checkKeyEnv("OPENAI_API_KEY")).toBeUndefined();
    expect(checkKeyEnv("MY-KEY")).toContain("environment variable name");
  });

  test("command lines split like a shell would, quotes and escapes included", () => {
    expect(splitCommandLine(`npx -y "@scope/server fs" '/data dir' a\\ b ""`)).toEqual([
      "npx",
      "-y",
      "@scope/server fs",
      "/data dir",
      "a b",
      "",
    ]);
    expect(() => splitCommandLine(`node "unterminated`)).toThrow('unclosed "');
    expect(serverEntry("  uvx mcp-server-git  ")).toEqual({ command: "uvx", args: ["mcp-server-git"] });
    expect(serverEntry("HTTPS://tools.example/mcp")).toEqual({ url: "HTTPS://tools.example/mcp" });
    expect(parseServerFlag("git=uvx mcp-server-git --repo .")).toEqual({ name: "git", target: "uvx mcp-server-git --repo ." });
    expect(() => parseServerFlag("no-equals")).toThrow("--server expects NAME=COMMAND or NAME=URL");
    expect(() => parseServerFlag("bad name=x")).toThrow("a server name uses letters");
  });
});

describe("agentd init --yes (real CLI)", () => {
  test("defaults: a local OpenAI-compatible endpoint that resolveConfig accepts", async () => {
    const ws = workspace();
    const run = await ws.run(["init", "--yes"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toStartWith("Wrote agentd.json\n");
    const path = join(ws.dir, "agentd.json");
    const written = read(path);
    // The $schema names a file that exists, relative to agentd.json (here the running CLI's own copy).
    expect(existsSync(resolve(ws.dir, written.$schema))).toBe(true);
    expect(written.$schema).toEndWith("/schema/agentd-config.v1.json");
    expect({ ...written, $schema: undefined }).toEqual({
      model: { intelligence: "http://127.0.0.1:11434/v1", dialect: "openai", name: "qwen3" },
    });
    const resolved = await resolveConfig({ configPath: path, env: {} });
    expect(resolved.config.model).toMatchObject({ intelligence: "http://127.0.0.1:11434/v1", dialect: "openai", name: "qwen3" });
  });

  test("flags: endpoint, dialect, model, key variable and servers; the key stays in the environment", async () => {
    const ws = workspace();
    const run = await ws.run(
      [
        "init",
        "-y",
        "--dialect",
        "anthropic",
        "-m",
        "claude-test",
        "--api-key-env",
        "MY_ANTHROPIC_KEY",
        "--server",
        "fs=npx -y '@scope/fs server' /data",
        "--server=remote=https://tools.example/mcp",
        "--config",
        "conf/agentd.json",
      ],
      { env: { MY_ANTHROPIC_KEY: "sk-ant-secret-value" } },
    );
    // The folder does not exist yet: it is created, like `mkdir -p`.
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("agentd mcp fs tools --config conf/agentd.json");
    expect(read(join(ws.dir, "conf", "agentd.json")).model).toEqual({
      dialect: "anthropic",
      name: "claude-test",
      apiKeyEnv: "MY_ANTHROPIC_KEY",
    });
    const ok = await ws.run(
      [
        "init",
        "-y",
        "--dialect",
        "anthropic",
        "-m",
        "claude-test",
        "--api-key-env",
        "MY_ANTHROPIC_KEY",
        "--server",
        "fs=npx -y '@scope/fs server' /data",
        "--server=remote=https://tools.example/mcp",
        "--config",
        "custom.json",
      ],
      { env: { MY_ANTHROPIC_KEY: "sk-ant-secret-value" } },
    );
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("export MY_ANTHROPIC_KEY=");
    expect(ok.stdout).toContain("agentd mcp fs tools --config custom.json");
    const text = readFileSync(join(ws.dir, "custom.json"), "utf8");
    expect(text).not.toContain("sk-ant-secret-value");
    const resolved = await resolveConfig({ configPath: join(ws.dir, "custom.json"), env: { MY_ANTHROPIC_KEY: "sk-ant-secret-value" } });
    expect(resolved.apiKey).toBe("sk-ant-secret-value");
    expect(resolved.config.model).toEqual({ dialect: "anthropic", name: "claude-test", apiKeyEnv: "MY_ANTHROPIC_KEY" });
    expect(resolved.config.mcpServers).toEqual({
      fs: { command: "npx", args: ["-y", "@scope/fs server", "/data"] },
      remote: { url: "https://tools.example/mcp" },
    });
  });

  test("the last example of `init --help` works: --config into a folder that does not exist yet", async () => {
    const ws = workspace();
    const run = await ws.run([
      "init",
      "--yes",
      "--server",
      "remote=https://tools.example/mcp",
      "--config",
      "ops/deep/agentd.json",
      "--force",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toStartWith("Wrote ops/deep/agentd.json\n");
    const resolved = await resolveConfig({ configPath: join(ws.dir, "ops", "deep", "agentd.json"), env: {} });
    expect(resolved.config.mcpServers).toEqual({ remote: { url: "https://tools.example/mcp" } });
  });

  test("a parent that is a file is one clear line", async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, "ops"), "not a folder\n");
    const run = await ws.run(["init", "--yes", "--config", "ops/agentd.json"]);
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe("agentd: cannot write ops/agentd.json: a file is in the way of its folder");
  });

  test("a plain http:// server URL is refused unless it is loopback, as agentd refuses it at run time", async () => {
    const ws = workspace();
    const remote = await ws.run(["init", "--yes", "--server", "r=http://example.com/mcp"]);
    expect(remote.code).toBe(2);
    expect(remote.stderr.split("\n")[0]).toBe(
      "agentd: --server r: plain http:// is allowed only on loopback (127.0.0.1, localhost, [::1]); use https://example.com/mcp",
    );
    expect(existsSync(join(ws.dir, "agentd.json"))).toBe(false);
    for (const url of ["http://127.0.0.1:8080/mcp", "http://localhost:3000/mcp", "http://[::1]:9/mcp", "HTTP://127.0.0.2/mcp"])
      expect(serverEntry(url)).toEqual({ url });
    expect(() => serverEntry("http://10.0.0.5/mcp")).toThrow("plain http:// is allowed only on loopback");
    expect(() => serverEntry("http://localhost.example.com/mcp")).toThrow("plain http:// is allowed only on loopback");
    expect(() => serverEntry("https://")).toThrow("not a valid URL");
    const local = await ws.run(["init", "--yes", "--server", "l=http://127.0.0.1:8080/mcp"]);
    expect(local.code).toBe(0);
    expect(read(join(ws.dir, "agentd.json")).mcpServers).toEqual({ l: { url: "http://127.0.0.1:8080/mcp" } });
  });

  test("`agentd mcp` with no servers says how to add one, and that way works", async () => {
    const ws = workspace();
    expect((await ws.run(["init", "--yes"])).code).toBe(0);
    const empty = await ws.run(["mcp"]);
    expect(empty.code).toBe(2);
    const hint = "e.g. agentd init --force --yes --server fs='npx -y @modelcontextprotocol/server-filesystem /data'";
    expect(empty.stderr.split("\n")[0]).toBe(`agentd: no MCP servers configured in agentd.json: add one under "mcpServers", ${hint}`);
    // Run the suggested command as a shell would split it.
    const added = await ws.run(["init", "--force", "--yes", "--server", "fs=npx -y @modelcontextprotocol/server-filesystem /data"]);
    expect(added.code).toBe(0);
    const listed = await ws.run(["mcp"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("npx -y @modelcontextprotocol/server-filesystem /data");
    // With no config file at all there is nothing to --force.
    const bare = workspace();
    const none = await bare.run(["mcp"]);
    expect(none.code).toBe(2);
    expect(none.stderr.split("\n")[0]).toBe(
      "agentd: no MCP servers configured (no agentd.json here): e.g. agentd init --yes --server fs='npx -y @modelcontextprotocol/server-filesystem /data'",
    );
    // A config file elsewhere is named in the hint.
    const elsewhere = workspace();
    expect((await elsewhere.run(["init", "--yes", "--config", "ops/a.json"])).code).toBe(0);
    const named = await elsewhere.run(["mcp", "--config", "ops/a.json"]);
    expect(named.stderr.split("\n")[0]).toContain("e.g. agentd init --force --yes --config ops/a.json --server fs=");
  });

  test("refuses to overwrite without --force, and overwrites with it", async () => {
    const ws = workspace();
    const path = join(ws.dir, "agentd.json");
    writeFileSync(path, '{"instructions":"mine"}\n');
    const refused = await ws.run(["init", "--yes", "--model", "other"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.split("\n")[0]).toBe("agentd: agentd.json already exists: pass --force to overwrite it");
    expect(readFileSync(path, "utf8")).toBe('{"instructions":"mine"}\n');
    const forced = await ws.run(["init", "--yes", "--model", "other", "--force"]);
    expect(forced.code).toBe(0);
    expect(read(path).model.name).toBe("other");
  });

  test("without a terminal and without --yes: exit 2 with a one-line hint, nothing written", async () => {
    const ws = workspace();
    const run = await ws.run(["init"]);
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe(
      "agentd: init asks questions but stdin is not a terminal: run 'agentd init --yes' with flags (--intelligence, --dialect, --model, --api-key-env, --server)",
    );
    expect(existsSync(join(ws.dir, "agentd.json"))).toBe(false);
  });

  test("bad flags are usage errors; a pasted key is not echoed", async () => {
    const ws = workspace();
    const dialect = await ws.run(["init", "--yes", "--dialect", "cohere"]);
    expect(dialect.code).toBe(2);
    expect(dialect.stderr).toContain("--dialect must be one of openai, responses, anthropic, gemini, got 'cohere'");
    const key = await ws.run(["init", "--yes", "--api-key-env", "sk-live-0123456789abcdef"]);
    expect(key.code).toBe(2);
    expect(key.stderr).toContain("looks like an API key");
    expect(key.stderr).not.toContain("0123456789abcdef");
    const remote = await ws.run(["init", "--yes", "--intelligence", "https://api.openai.com/v1"]);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("a model name is needed for https://api.openai.com/v1 (--model)");
    expect(existsSync(join(ws.dir, "agentd.json"))).toBe(false);
  });

  test("the server it writes is one `agentd mcp` can talk to", async () => {
    const ws = workspace();
    const fake = fakeServerCommand({ tools: [{ name: "hello", description: "Say hello", text: "hi" }] });
    try {
      const line = [fake.command, ...fake.args].map((w) => `'${w}'`).join(" ");
      const init = await ws.run(["init", "--yes", "--server", `fake=${line}`]);
      expect(init.code).toBe(0);
      const tools = await ws.run(["mcp", "fake", "tools"]);
      expect(tools.code).toBe(0);
      expect(tools.stdout).toMatch(/\nhello +- +Say hello\n/);
      const call = await ws.run(["mcp", "fake", "call", "hello"]);
      expect(call.stdout).toBe("hi\n");
    } finally {
      fake.dispose();
    }
  });
});

describe("agentd init (interactive, real pseudo-terminal)", () => {
  test("answers typed at the prompts end up in agentd.json", async () => {
    const ws = workspace();
    // `script` gives the CLI a pty; stty sizes it (a pty without a size makes prompts wrap at every character).
    const command = `stty cols 100 rows 40; exec '${process.execPath}' '${CLI_MAIN}' init`;
    const proc = Bun.spawn(["script", "-qfec", command, "/dev/null"], {
      cwd: ws.dir,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "", TERM: "xterm" },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    let screen = "";
    const decoder = new TextDecoder();
    const reading = (async () => {
      for await (const chunk of proc.stdout) screen += decoder.decode(chunk, { stream: true });
    })();
    let at = 0;
    /** Wait until `prompt` is on screen (after the previous one), then type `keys`. */
    const answer = async (prompt: string, keys: string) => {
      const deadline = Date.now() + 15_000;
      while (screen.indexOf(prompt, at) < 0) {
        if (Date.now() > deadline) throw new Error(`prompt "${prompt}" never appeared; screen so far:\n${screen}`);
        await Bun.sleep(20);
      }
      at = screen.indexOf(prompt, at) + prompt.length;
      proc.stdin.write(keys);
      proc.stdin.flush();
    };
    try {
      await answer("Which API does the model speak?", "\x1b[B\r"); // ↓ to Anthropic, Enter
      await answer("Model endpoint URL", "\r"); // empty: the provider's own
      await answer("Model name", "claude-test\r");
      await answer("Environment variable holding the API key", "\r"); // default ANTHROPIC_API_KEY
      await answer("Add an MCP server now?", "\r"); // Yes
      await answer("Server name", "docs\r");
      await answer("Command line or URL", "npx -y '@scope/docs server' /srv\r");
      // A second server, then no more.
      await answer("Add another MCP server?", "y");
      await answer("Server name", "web\r");
      await answer("Command line or URL", "https://tools.example/mcp\r");
      await answer("Add another MCP server?", "\r"); // default: no
      await answer("check that it answers?", "n");
      expect(await proc.exited).toBe(0);
      await reading;
      expect(screen).toContain("Wrote agentd.json");
      const resolved = await resolveConfig({ configPath: join(ws.dir, "agentd.json"), env: {} });
      const { $schema, ...rest } = resolved.config;
      expect(rest).toEqual({
        model: { dialect: "anthropic", name: "claude-test", apiKeyEnv: "ANTHROPIC_API_KEY" },
        mcpServers: { docs: { command: "npx", args: ["-y", "@scope/docs server", "/srv"] }, web: { url: "https://tools.example/mcp" } },
      });
      expect(existsSync(resolve(ws.dir, $schema as string))).toBe(true);
    } finally {
      proc.kill("SIGKILL");
    }
  }, 60_000);
});

describe("agentd init --check (real CLI, a fake gateway)", () => {
  test("the model answers: its reply is printed, exit 0", async () => {
    const ws = workspace();
    const gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "Reachable and ready." }] });
    try {
      const run = await ws.run(["init", "--yes", "--intelligence", gateway.url, "--model", "m1", "--check"]);
      expect(run.stderr).not.toContain("did not answer");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("The model answered: Reachable and ready.\n");
      expect(gateway.requests).toHaveLength(1);
      expect(gateway.requests[0]?.model).toBe("m1");
    } finally {
      await gateway.close();
    }
  });

  test("the model refuses: one line says so, the file stays written, the exit code is the run's", async () => {
    const ws = workspace();
    // An Anthropic endpoint where an OpenAI-compatible one is configured: the chat completions path is not found.
    const gateway = await startFakeGateway({ dialect: "anthropic", script: [{ text: "never" }] });
    try {
      const run = await ws.run(["init", "--yes", "--intelligence", gateway.url, "--model", "no-such-model", "--check"]);
      expect(run.code).toBe(4);
      expect(run.stderr).toContain("agentd: the model did not answer: ");
      expect(run.stderr).toContain("agentd.json was written");
      expect(run.stderr).not.toContain("    at ");
      expect(existsSync(join(ws.dir, "agentd.json"))).toBe(true);
    } finally {
      await gateway.close();
    }
  });

  test("without --check, --yes sends nothing", async () => {
    const ws = workspace();
    const gateway = await startFakeGateway({ dialect: "openai", script: [] });
    try {
      expect((await ws.run(["init", "--yes", "--intelligence", gateway.url, "--model", "m1"])).code).toBe(0);
      expect(gateway.requests).toHaveLength(0);
    } finally {
      await gateway.close();
    }
  });
});

test("$schema: the project's installed copy wins, searched upwards; without any copy on disk none is written", () => {
  const ws = workspace();
  const installed = join(ws.dir, "node_modules", "@agentd", "cli", "schema");
  mkdirSync(installed, { recursive: true });
  writeFileSync(join(installed, "agentd-config.v1.json"), "{}");
  mkdirSync(join(ws.dir, "ops"));
  expect(schemaRefFor(join(ws.dir, "agentd.json"))).toBe(CONFIG_SCHEMA);
  expect(schemaRefFor(join(ws.dir, "ops", "agentd.json"))).toBe("../node_modules/@agentd/cli/schema/agentd-config.v1.json");
  const bare = workspace();
  expect(schemaRefFor(join(bare.dir, "agentd.json"), join(bare.dir, "missing.json"))).toBeUndefined();
});

test("the $schema agentd init writes resolves, in a project that installs agentd, to the JSON Schema @agentd/cli ships", () => {
  const schema = JSON.parse(readFileSync(join(REPO_ROOT, CONFIG_SCHEMA), "utf8"));
  expect(schema.title).toContain("agentd.json");
  expect(Object.keys(schema.properties)).toContain("mcpServers");
});
