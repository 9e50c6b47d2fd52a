/**
 * `agentd status` against a live `agentd serve --http` (the testkit gateway as the model, the recording MCP
 * server as the tool; runs made over MCP with the official SDK client): the tables, `--json`, `--watch`
 * seeing a new run appear, and one-line errors for an unreachable URL (exit 4) and rejected credentials (exit 2).
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Turn } from "@agentd/testkit";
import { CLI_MAIN } from "@agentd/test-support/cli-process";
import { gate, serveWorld, toolLike } from "./__fixtures__/serve/serve-env.ts";
import { childEnv, startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

setDefaultTimeout(60_000);

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
const clients: Client[] = [];
const watchers = new Set<ReturnType<typeof Bun.spawn>>();
afterEach(async () => {
  for (const w of watchers) w.kill("SIGKILL");
  await Promise.all([...watchers].map((w) => w.exited));
  watchers.clear();
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await stopAllServe();
  await world?.close();
  world = undefined;
});

const slow = gate();
const held = gate();
/** "tool …" runs call echo (and fail: limits.maxTurns is 1); "slow …" and "held …" wait for the test; others answer at once. */
const script: Turn = async (req) => {
  const instruction = req.messages.find((m) => m.role === "user")?.text ?? "";
  if (instruction.includes("tool") && req.lastToolResult === undefined)
    return { toolCalls: [{ name: toolLike(req, "echo"), arguments: { text: "x" } }] };
  if (instruction.includes("slow")) await slow.promise;
  if (instruction.includes("held")) await held.promise;
  return { text: "done" };
};

async function serve(extra: (dir: string) => string[] = () => []): Promise<ServeProcess> {
  world = await serveWorld([script], { onExhausted: "repeat-last" });
  const config = world.ws.writeConfig({ mcpServers: { rec: world.ws.recordingServer() }, limits: { maxTurns: 1 } });
  return startServe(["--http", "127.0.0.1:0", "--config", config, ...extra(world.ws.dir)], { env: world.env });
}

async function connect(url: URL, token?: string): Promise<Client> {
  const client = new Client({ name: "status-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(url, token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  );
  clients.push(client);
  return client;
}

async function status(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, CLI_MAIN, "status", ...args], {
    env: childEnv(env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}

test("tables: the overview, the run in flight and the last failure, aligned", async () => {
  const agentd = await serve();
  const client = await connect(agentd.url);
  await client.callTool({ name: "agent.run", arguments: { instruction: "plain answer", runId: "st-ok" } });
  const failed = await client.callTool({ name: "agent.run", arguments: { instruction: "use a tool", runId: "st-bad" } });
  expect(failed.isError).toBe(true);
  const inFlight = client.callTool({ name: "agent.run", arguments: { instruction: "slow work please", runId: "st-slow" } });
  await agentd.waitForEvent((e) => e.event === "model.request" && e.runId === "st-slow");

  const out = await status(["--url", new URL(agentd.url.origin).href]);
  expect(out.stderr).toBe("");
  expect(out.code).toBe(0);
  const lines = out.stdout.split("\n");
  expect(lines.find((l) => l.startsWith("state"))).toMatch(/^state\s+running \(1 in flight\)$/);
  expect(lines.find((l) => l.startsWith("runs"))).toMatch(/^runs\s+3 started, 1 succeeded, 1 failed$/);
  // The running table: a header and the slow run, its columns starting where the header's do.
  const running = lines.slice(lines.indexOf("Running") + 1, lines.indexOf("Running") + 3);
  expect(running[0]).toMatch(/^RUN\s+VIA\s+FOR\s+TURNS\s+TOOLS\s+INSTRUCTION$/);
  expect(running[1]).toMatch(/^st-slow\s+mcp\s+\d+s\s+\d+\s+0\s+slow work please$/);
  expect(running[1]!.indexOf("mcp")).toBe(running[0]!.indexOf("VIA"));
  const failures = lines.slice(lines.indexOf("Last failures") + 1, lines.indexOf("Last failures") + 3);
  expect(failures[0]).toMatch(/^RUN\s+VIA\s+AGO\s+CODE\s+MESSAGE$/);
  expect(failures[1]).toMatch(/^st-bad\s+mcp\s+\d+s\s+E_BUDGET_TURNS\s+/);
  expect(failures[1]!.indexOf("E_BUDGET_TURNS")).toBe(failures[0]!.indexOf("CODE"));
  slow.open();
  await inFlight;
});

test("a principal's instruction carrying terminal escapes is shown escaped: no ESC or BEL reaches the operator's terminal", async () => {
  const agentd = await serve();
  const client = await connect(agentd.url);
  const hostile = "held \x1b]0;pwned\x07 \x1b]52;c;ZXZpbA==\x07 \x1b[2J \x9b31m";
  await client.callTool({ name: "agent.run", arguments: { instruction: `use a tool ${hostile}`, runId: "esc-bad" } });
  const inFlight = client.callTool({ name: "agent.run", arguments: { instruction: hostile, runId: "esc-slow" } });
  await agentd.waitForEvent((e) => e.event === "model.request" && e.runId === "esc-slow");
  const out = await status(["--url", agentd.url.href]);
  expect(out.code).toBe(0);
  expect(out.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  expect(out.stdout).toMatch(/^esc-slow\s+mcp\s+.*held \\u001b\]0;pwned\\u0007 \\u001b\]52;c;ZXZpbA==\\u0007 \\u001b\[2J \\u009b31m$/m);
  // --json carries the text as it is, JSON-escaped.
  const json = await status(["--url", agentd.url.href, "--json"]);
  expect(JSON.parse(json.stdout).running[0].instruction).toBe(hostile);
  held.open();
  await inFlight;
});

test("--json prints one JSON document", async () => {
  const agentd = await serve();
  const client = await connect(agentd.url);
  await client.callTool({ name: "agent.run", arguments: { instruction: "use a tool", runId: "j-bad" } });
  const out = await status(["--json"], { AGENTD_URL: agentd.url.href });
  expect(out.code).toBe(0);
  const doc = JSON.parse(out.stdout);
  expect(doc.url).toBe(agentd.url.href);
  expect(doc.status).toMatchObject({ state: "idle", runsStarted: 1, runsFailed: 1 });
  expect(doc.running).toEqual([]);
  expect(doc.failures).toEqual([
    expect.objectContaining({ runId: "j-bad", status: "failed", via: "mcp", error: expect.objectContaining({ code: "E_BUDGET_TURNS" }) }),
  ]);
});

test("--watch prints again when a new run appears, until SIGINT", async () => {
  const agentd = await serve();
  const watcher = Bun.spawn([process.execPath, CLI_MAIN, "status", "--watch", "--url", agentd.url.href], {
    env: childEnv(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  watchers.add(watcher);
  let out = "";
  const reader = (watcher.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const until = async (pattern: RegExp) => {
    while (!pattern.test(out)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`agentd status ended before ${pattern}; stdout:\n${out}`);
      out += decoder.decode(value, { stream: true });
    }
  };
  await until(/Last failures\nnone\n/);
  expect(out).toContain("0 started");
  const client = await connect(agentd.url);
  await client.callTool({ name: "agent.run", arguments: { instruction: "use a tool", runId: "w-new" } });
  await until(/w-new\s+mcp\s+\d+s\s+E_BUDGET_TURNS/);
  expect(out).toMatch(/1 started, 0 succeeded, 1 failed/);
  watcher.kill("SIGINT");
  expect(await watcher.exited).toBe(0);
  watchers.delete(watcher);
});

test("an unreachable URL is one line and exit 4; a rejected token one line and exit 2", async () => {
  const down = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = down.port;
  down.stop(true);
  const unreachable = await status(["--url", `http://127.0.0.1:${port}/mcp`]);
  expect(unreachable.code).toBe(4);
  expect(unreachable.stderr.trim().split("\n")).toEqual([
    expect.stringMatching(
      new RegExp(`^agentd: cannot reach agentd at http://127\\.0\\.0\\.1:${port}/mcp .*is agentd serve --http running there\\?`),
    ),
  ]);

  const agentd = await serve((dir) => {
    writeFileSync(join(dir, "tokens"), "status-test-token-0123456789\n");
    return ["--auth-tokens", join(dir, "tokens")];
  });
  const noToken = await status(["--url", agentd.url.href]);
  expect(noToken.code).toBe(2);
  expect(noToken.stderr.trim().split("\n")).toEqual([
    expect.stringContaining("rejected the credentials (HTTP 401): give a valid token with --token-file FILE or AGENTD_TOKEN"),
  ]);
  const wrong = await status(["--url", agentd.url.href], { AGENTD_TOKEN: "not-the-token-0123456789" });
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).not.toContain("not-the-token");
  const right = await status(["--url", agentd.url.href], { AGENTD_TOKEN: "status-test-token-0123456789" });
  expect(right.code).toBe(0);
  expect(right.stdout).toContain("state");
});
