/**
 * `--mcp-config` with the files of tools whose format is not agentd's own, end to end through the real CLI:
 * a Codex `config.toml` (TOML, read lazily) and a goose `config.yaml` (YAML) whose server is a real stdio
 * child. `agentd mcp` lists the servers and a server's tools, and says — in `agentd run`'s words — which
 * servers it left out and which keys it did not take; `agentd run` offers the model only the tools the
 * file's `enabled_tools`/`disabled_tools` allow.
 */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace, events } from "@agentd/test-support/cli-process";

let ws: CliWorkspace;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  ws?.cleanup();
});

/** A Codex config.toml as Codex writes it, whose `rec` server is the recording fixture. */
function codexToml(): string {
  const { command, args } = ws.recordingServer();
  const path = join(ws.dir, "config.toml");
  writeFileSync(
    path,
    `model = "gpt-5.1-codex"
approval_policy = "on-request"

[mcp_servers.rec]
command = ${JSON.stringify(command)}
args = ${JSON.stringify(args)}
startup_timeout_sec = 20
tool_timeout_sec = 30
enabled_tools = ["echo", "slow"]
disabled_tools = ["slow"]

[mcp_servers.linear]
url = "https://mcp.linear.app/mcp"
bearer_token_env_var = "LINEAR_API_KEY"
`,
  );
  return path;
}

test("agentd mcp --mcp-config config.toml (Codex): lists the servers, says what it left out, and lists a real server's tools", async () => {
  ws = new CliWorkspace();
  const file = codexToml();
  const list = await ws.run(["mcp", "--mcp-config", file]);
  expect(list.code).toBe(0);
  expect(list.stdout).toContain("rec");
  expect(list.stdout).not.toContain("linear");
  const warnings = events(list).filter((e) => e.level === "warn");
  expect(warnings.map(({ ts: _ts, ...e }) => e)).toEqual([
    {
      level: "warn",
      event: "config.server_skipped",
      server: "linear",
      reason: `MCP server 'linear' (${file}) left out: bearer_token_env_var names LINEAR_API_KEY, which is not set: set it in the environment`,
    },
    {
      level: "warn",
      event: "config.keys_not_taken",
      file,
      tool: "OpenAI Codex",
      keys: "rec.startup_timeout_sec",
      hint: "these settings of the other tool have no effect in agentd; AGENT_LOG_LEVEL=debug says why for each",
    },
  ]);
  const tools = await ws.run(["mcp", "rec", "tools", "--mcp-config", file]);
  expect(tools.code).toBe(0);
  expect(tools.stdout).toContain("echo");
  expect(ws.received().some((m) => m.method === "tools/list")).toBe(true);
});

test("agentd run --mcp-config config.toml (Codex): the model is offered only the tools enabled_tools less disabled_tools allow", async () => {
  ws = new CliWorkspace();
  const file = codexToml();
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: req.tools.find((t) => t.endsWith("echo")) ?? "missing", arguments: { text: "from codex" } }] }),
      (req) => ({ text: `offered: ${req.tools.join(",")}; ${req.lastToolResult?.match(/echo: from codex/)?.[0]}` }),
    ],
  });
  const run = await ws.run(["run", "--mcp-config", file, "Echo through the Codex server"], {
    env: { AGENT_INTELLIGENCE: gateway.url, AGENT_MODEL: "test-model" },
  });
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("offered: rec__echo; echo: from codex\n");
  // The same lines as `agentd mcp` prints for the same file.
  const mcp = await ws.run(["mcp", "--mcp-config", file]);
  const said = (r: typeof run) =>
    events(r)
      .filter((e) => e.event === "config.server_skipped" || e.event === "config.keys_not_taken")
      .map(({ ts: _ts, ...e }) => e);
  expect(said(run)).toHaveLength(2);
  expect(said(run)).toEqual(said(mcp));
});

test("agentd mcp --mcp-config config.yaml (goose): a stdio extension's tools; a built-in extension is left out, named", async () => {
  ws = new CliWorkspace();
  const { command, args } = ws.recordingServer();
  const file = join(ws.dir, "config.yaml");
  writeFileSync(
    file,
    `GOOSE_PROVIDER: openai
extensions:
  developer:
    bundled: true
    display_name: Developer
    enabled: true
    name: developer
    timeout: 300
    type: builtin
  rec:
    args: ${JSON.stringify(args)}
    bundled: null
    cmd: ${JSON.stringify(command)}
    description: the recording fixture
    enabled: true
    env_keys: []
    envs: {}
    name: rec
    timeout: 300
    type: stdio
`,
  );
  const tools = await ws.run(["mcp", "rec", "tools", "--mcp-config", file]);
  expect(tools.code).toBe(0);
  expect(tools.stdout).toContain("echo");
  expect(events(tools).map((e) => e.reason)).toEqual([
    `MCP server 'developer' (${file}) left out: a goose builtin extension ('developer'), part of goose itself, which agentd cannot run`,
  ]);
});
