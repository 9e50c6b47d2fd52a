/**
 * `agentd mcp` end to end: the real CLI process, a config file naming the testkit's fake MCP server as a
 * real stdio child, and checks that every child is gone when the command exits.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { fakeServerCommand, type FakeServerCommand } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace, type CliRun } from "@agentd/test-support/cli-process";

const PNG = "iVBORw0KGgo".repeat(200);
let ws: CliWorkspace;
let fake: FakeServerCommand;

beforeAll(() => {
  ws = new CliWorkspace();
  fake = fakeServerCommand({
    name: "files",
    tools: [
      {
        name: "read_file",
        description: "Read a file from the data folder\nSecond line is not shown in the table",
        inputSchema: {
          type: "object",
          properties: { path: { type: "string" }, limit: { type: "integer" }, raw: { type: "boolean" } },
          required: ["path"],
        },
        text: "contents of {{path}}",
      },
      { name: "broken", description: "Always fails", text: "disk on fire", isError: true },
      {
        name: "snapshot",
        result: {
          content: [
            { type: "image", data: PNG, mimeType: "image/png" },
            { type: "text", text: "the chart" },
          ],
        },
      },
      { name: "slow", hang: true },
    ],
    resources: [{ uri: "file:///data/x", name: "x.md", mimeType: "text/markdown", text: "# hello from x" }],
    resourceTemplates: [{ uriTemplate: "file:///data/{name}", name: "data file", text: "file {{name}}" }],
    prompts: [
      {
        name: "review",
        description: "Review a file",
        arguments: [{ name: "file", required: true }, { name: "tone" }],
        messages: [{ role: "user", text: "Review {{file}} please" }],
      },
    ],
  });
  ws.writeConfig({ mcpServers: { fs: fake.config, gone: { command: `${ws.dir}/no-such-binary` } } });
});
afterAll(() => {
  ws.cleanup();
  fake.dispose();
});

/** Every child the fake server command started during `run` must be gone once the CLI has exited. */
let seen = 0;
function expectNoOrphans(): void {
  const records = fake.recordedRequests().slice(seen);
  seen += records.length;
  for (const pid of new Set(records.map((r) => r.pid))) expect(() => process.kill(pid, 0)).toThrow();
}
afterEach(() => expectNoOrphans());

const requestsOf = (method: string) => fake.recordedRequests().filter((r) => r.method === method);
async function until(ready: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}
const stderrLines = (run: CliRun) => run.stderr.split("\n").filter(Boolean);

describe("agentd mcp (real child server)", () => {
  test("without a server it lists the configured ones", async () => {
    const run = await ws.run(["mcp"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^SERVER +TRANSPORT +COMMAND \/ URL\n/);
    expect(run.stdout).toMatch(/\nfs +stdio +\S+ .*fake-mcp-server\.ts/);
    expect(run.stdout).toContain("gone");
  });

  test("tools: a readable table, and --json for the schemas", async () => {
    const run = await ws.run(["mcp", "fs", "tools"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^TOOL +ARGS \(\? = optional\) +DESCRIPTION$/);
    expect(lines[1]).toMatch(/^read_file +path, limit\?, raw\? +Read a file from the data folder$/);
    expect(lines).toHaveLength(5);
    const json = await ws.run(["mcp", "fs", "tools", "--json"]);
    expect(json.code).toBe(0);
    const tools = JSON.parse(json.stdout);
    expect(tools.map((t: { name: string }) => t.name)).toEqual(["read_file", "broken", "snapshot", "slow"]);
    expect(tools[0].inputSchema.required).toEqual(["path"]);
  });

  test("call with a JSON object, or with --arg pairs typed by the input schema", async () => {
    const before = requestsOf("tools/call").length;
    const a = await ws.run(["mcp", "fs", "call", "read_file", '{"path":"/data/x"}'], { env: { RUN_ID: "poke-1" } });
    expect(a.code).toBe(0);
    expect(a.stdout).toBe("contents of /data/x\n");
    const b = await ws.run([
      "mcp",
      "fs",
      "call",
      "read_file",
      "--arg",
      "path=/data/y",
      "--arg=limit=3",
      "-a",
      "raw=true",
      "--arg",
      "extra:=[1,2]",
    ]);
    expect(b.code).toBe(0);
    expect(b.stdout).toBe("contents of /data/y\n");
    const calls = requestsOf("tools/call").slice(before);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.params.arguments).toEqual({ path: "/data/x" });
    expect(calls[0]!.meta["agentd.dev/run-id"]).toBe("poke-1");
    expect(calls[1]!.params.arguments).toEqual({ path: "/data/y", limit: 3, raw: true, extra: [1, 2] });
  });

  test("call reads the JSON arguments from stdin with '-'", async () => {
    const run = await ws.run(["mcp", "fs", "call", "read_file", "-"], { stdin: '{"path":"/from/stdin"}' });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("contents of /from/stdin\n");
  });

  test("an isError result prints its content and exits 1 with one line on stderr", async () => {
    const run = await ws.run(["mcp", "fs", "call", "broken"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("disk on fire\n");
    expect(stderrLines(run)).toEqual(["agentd: fs/broken returned an error result (isError)"]);
    const json = await ws.run(["mcp", "fs", "call", "broken", "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ content: [{ type: "text", text: "disk on fire" }], isError: true });
  });

  test("images are summarised, text kept", async () => {
    const run = await ws.run(["mcp", "fs", "call", "snapshot"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`[image image/png, ${((PNG.length * 3) / 4 / 1024).toFixed(1)} KB]\nthe chart\n`);
  });

  test("a mistyped argument or tool is a usage error (exit 2) before anything is called", async () => {
    const before = requestsOf("tools/call").length;
    const bad = await ws.run(["mcp", "fs", "call", "read_file", "--arg", "path=/x", "--arg", "limit=lots"]);
    expect(bad.code).toBe(2);
    expect(stderrLines(bad)[0]).toBe("agentd: --arg limit expects a whole number, got 'lots'");
    const unknown = await ws.run(["mcp", "fs", "call", "reed_file"]);
    expect(unknown.code).toBe(2);
    expect(stderrLines(unknown)[0]).toBe("agentd: fs has no tool 'reed_file'; its tools: read_file, broken, snapshot, slow");
    expect(requestsOf("tools/call").length).toBe(before);
  });

  test("resources and read", async () => {
    const list = await ws.run(["mcp", "fs", "resources"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^URI +MIME +NAME\nfile:\/\/\/data\/x +text\/markdown +x\.md\nfile:\/\/\/data\/\{name\} +- +data file \(template\)\n$/,
    );
    const read = await ws.run(["mcp", "fs", "read", "file:///data/x"]);
    expect(read.code).toBe(0);
    expect(read.stdout).toBe("# hello from x\n");
    const missing = await ws.run(["mcp", "fs", "read", "other:///nope"]);
    expect(missing.code).toBe(2);
    expect(stderrLines(missing)[0]).toMatch(/^agentd: fs refused read: .*\(-32002\)$/);
  });

  test("prompts and get-prompt (prompts switched on for this command)", async () => {
    const list = await ws.run(["mcp", "fs", "prompts"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^PROMPT +ARGS \(\? = optional\) +DESCRIPTION\nreview +file, tone\? +Review a file\n$/);
    const get = await ws.run(["mcp", "fs", "get-prompt", "review", "--arg", "file=main.ts"]);
    expect(get.code).toBe(0);
    expect(get.stdout).toBe("user: Review main.ts please\n");
    const json = await ws.run(["mcp", "fs", "get-prompt", "review", "--arg", "file=a.ts", "--json"]);
    expect(JSON.parse(json.stdout).messages[0].content).toEqual({ type: "text", text: "Review a.ts please" });
    expect(requestsOf("prompts/get").at(-1)!.params.arguments).toEqual({ file: "a.ts" });
  });

  test("an unknown server is exit 2 naming the configured ones, and nothing is started", async () => {
    const before = fake.recordedRequests().length;
    const run = await ws.run(["mcp", "nope", "tools"]);
    expect(run.code).toBe(2);
    expect(stderrLines(run)[0]).toBe("agentd: unknown MCP server 'nope': configured servers are fs, gone");
    expect(fake.recordedRequests().length).toBe(before);
  });

  test("an unknown action or a missing target is exit 2", async () => {
    const action = await ws.run(["mcp", "fs", "frobnicate"]);
    expect(action.code).toBe(2);
    expect(stderrLines(action)[0]).toBe(
      "agentd: unknown action 'frobnicate': use one of tools, call, resources, read, prompts, get-prompt, complete",
    );
    const target = await ws.run(["mcp", "fs", "read"]);
    expect(target.code).toBe(2);
    expect(stderrLines(target)[0]).toBe("agentd: read needs a URI: agentd mcp fs read URI");
  });

  test("a server that cannot start is exit 4 (upstream unavailable)", async () => {
    const run = await ws.run(["mcp", "gone", "tools"]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("MCP server 'gone'");
  });

  test("--help teaches by example", async () => {
    const run = await ws.run(["mcp", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("USAGE");
    expect(run.stdout).toContain("Examples:");
    expect(run.stdout).toContain("agentd mcp fs call read_file --arg path=/data/x");
  });

  test("SIGINT during a hanging call: exit 130 and the server child is gone", async () => {
    const before = requestsOf("tools/call").length;
    const proc = Bun.spawn([process.execPath, CLI_MAIN, "mcp", "fs", "call", "slow"], {
      cwd: ws.dir,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
        AGENT_LOG_FORMAT: "json",
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      // The record file is written by the child as each request arrives: wait for the call to be in flight.
      await until(() => requestsOf("tools/call").length > before, "the tools/call to reach the server");
      proc.kill("SIGINT");
      const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
      expect(code).toBe(130);
      expect(stderr).toContain("interrupted by SIGINT");
    } finally {
      proc.kill("SIGKILL");
    }
  });
});

describe("agentd mcp with a server that writes terminal escapes", () => {
  const ESC = "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b31m";
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
  let evil: FakeServerCommand;
  let hostile: CliWorkspace;
  beforeAll(() => {
    hostile = new CliWorkspace();
    evil = fakeServerCommand({
      name: `evil${ESC}`,
      tools: [{ name: "innocent", description: `Lists files${ESC}`, text: `result${ESC}\nsecond line` }],
      resources: [{ uri: "file:///x", name: `x${ESC}`, mimeType: "text/plain", text: `body${ESC}` }],
      prompts: [{ name: "p", description: `desc${ESC}`, messages: [{ role: "user", text: `hi${ESC}` }] }],
    });
    hostile.writeConfig({ mcpServers: { evil: evil.config } });
  });
  afterAll(() => {
    hostile.cleanup();
    evil.dispose();
  });

  test("tool descriptions, results, resources and prompts are shown escaped; --json keeps the text", async () => {
    for (const args of [["tools"], ["call", "innocent"], ["resources"], ["read", "file:///x"], ["prompts"], ["get-prompt", "p"]]) {
      const run = await hostile.run(["mcp", "evil", ...args]);
      expect(run.code).toBe(0);
      expect(run.stdout).not.toMatch(CONTROL);
      expect(run.stdout).toContain("\\u001b]0;pwned\\u0007\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J\\u009b31m");
      expect(run.stderr).not.toMatch(CONTROL);
    }
    const call = await hostile.run(["mcp", "evil", "call", "innocent"]);
    expect(call.stdout).toContain("\nsecond line");
    const json = await hostile.run(["mcp", "evil", "tools", "--json"]);
    expect(JSON.parse(json.stdout)[0].description).toBe(`Lists files${ESC}`);
  }, 60_000);
});
