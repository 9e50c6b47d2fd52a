/**
 * The MCP clients people already use, each pointed at the real `agentd serve` (Streamable HTTP, with and
 * without `--json-response`, and stdio): list tools, call `agent.run`, read `agent://status` (and subscribe to
 * it where the client can), and count the transport errors the client reports, which must be none. One serve
 * per HTTP mode is shared by every client in turn. Then agentd as the client, with its default settings, of
 * servers it did not write (the reference servers, fastmcp, mcp-framework, Express with the official SDK,
 * Mastra's 2026-07-28-only `MCPServer`), over stdio and HTTP where the server offers it: `agentd mcp … tools`,
 * `agentd mcp … call`, and one run whose scripted model calls the server's tool, with no warning or error in
 * agentd's telemetry. Clients, servers and versions are pinned in the root package.json; the matrices are in
 * docs/interop.md ("Clients tried", "Servers tried").
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { startFakeGateway, type FakeGateway, type Turn } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { INTEROP_CLIENTS as SDK_CLIENTS, type InteropClient, type Target } from "./__fixtures__/interop/clients.ts";
import { langchain, mastra } from "./__fixtures__/interop/framework-clients.ts";
import { inspectorCli, mcpRemote } from "./__fixtures__/interop/process-clients.ts";
import { SERVER_CASES } from "./__fixtures__/interop/servers.ts";
import { serveWorld, toolLike } from "./__fixtures__/serve/serve-env.ts";
import { childEnv, startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const CLIENTS: InteropClient[] = [...SDK_CLIENTS, langchain, mastra, mcpRemote, inspectorCli];

/** Every run the clients start: call the recording server's `echo`, then answer with what it returned. */
const echoEachRun: Turn[] = [
  (req) =>
    req.lastToolResult === undefined
      ? { toolCalls: [{ name: toolLike(req, "echo"), arguments: { text: "hello over serve" } }] }
      : { text: `The tool said: ${req.lastToolResult.match(/echo: hello over serve/)?.[0] ?? "nothing"}` },
];

/** Connect `client` to `target`, do the three things every client does, and return the errors it reported. */
async function exercise(client: InteropClient, target: Target): Promise<{ errors: unknown[]; revision: string | undefined }> {
  const errors: unknown[] = [];
  const session = await client.connect(target, errors);
  try {
    expect(await session.listToolNames()).toContain("agent.run");
    const before = await session.readStatus();
    const subscribed = await session.subscribeStatus?.();
    expect(await session.run("Say hello through the echo tool")).toBe("The tool said: echo: hello over serve");
    // The run changed agent://status: a client that subscribed is told.
    await subscribed?.updated;
    const after = await session.readStatus();
    if (session.oneProcessPerCall) expect(after).toMatchObject({ state: "idle" });
    else expect(after).toMatchObject({ state: "idle", runsSucceeded: Number(before.runsSucceeded) + 1 });
  } finally {
    // Errors a client reports while it closes count too, except its own abort of a stream it is closing (the
    // official v1 SDK reports "SSE stream disconnected: AbortError" when its close() aborts the GET stream).
    const closing = errors.length;
    await session.close();
    const duringClose = errors.splice(closing);
    errors.push(...duringClose.filter((e) => !/AbortError|operation was aborted/.test(describeErrors([e])[0]!)));
  }
  return { errors, revision: session.revision };
}

const describeErrors = (errors: unknown[]) =>
  errors.map((e) => (e instanceof Error ? e.message : typeof e === "string" ? e : JSON.stringify(e)).slice(0, 200));

// One agentd serve per transport, shared by every client in turn (the clients run one after another).
for (const mode of [
  { name: "--http", flags: [] as string[] },
  { name: "--http --json-response", flags: ["--json-response"] },
]) {
  describe(`clients against agentd serve ${mode.name}`, () => {
    let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
    let serve: ServeProcess | undefined;
    beforeAll(async () => {
      world = await serveWorld(echoEachRun, { onExhausted: "repeat-last" });
      serve = await startServe(["--http", "127.0.0.1:0", ...mode.flags, "--config", world.config, "--grace", "2s"], {
        env: world.env,
        cwd: world.ws.dir,
      });
    }, 30_000);
    afterAll(async () => {
      await stopAllServe();
      await world?.close();
    }, 30_000);
    for (const client of CLIENTS) {
      test(`${client.name} ${client.version}: tools, agent.run, agent://status with no transport error`, async () => {
        const { errors } = await exercise(client, { kind: "http", url: serve!.url });
        expect(describeErrors(errors)).toEqual([]);
      }, 60_000);
    }
  });
}

describe("clients against agentd serve --stdio", () => {
  let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
  beforeAll(async () => {
    world = await serveWorld(echoEachRun, { onExhausted: "repeat-last" });
  });
  afterAll(async () => {
    await world?.close();
  });
  // A bridge to a URL (mcp-remote) has no stdio side to point at agentd.
  for (const client of CLIENTS.filter((c) => c.httpOnly !== true)) {
    test(`${client.name} ${client.version}: the same with no transport error`, async () => {
      const target: Target = {
        kind: "stdio",
        command: process.execPath,
        args: [CLI_MAIN, "serve", "--stdio", "--config", world!.config],
        env: childEnv(world!.env),
        cwd: world!.ws.dir,
      };
      const { errors } = await exercise(client, target);
      expect(describeErrors(errors)).toEqual([]);
    }, 60_000);
  }
});

/**
 * agentd's warnings and errors in its stderr telemetry, but for a tool it leaves out on purpose
 * (`mcp.tool_unavailable`: server-everything's task-only tool while tasks are off).
 */
const troubleIn = (stderr: string): string[] =>
  stderr.split("\n").filter((line) => /"level":"(warn|error)"/.test(line) && !line.includes('"event":"mcp.tool_unavailable"'));

describe("agentd as the client of servers it did not write (default settings)", () => {
  let ws: CliWorkspace | undefined;
  let gateway: FakeGateway | undefined;
  const started: Subprocess[] = [];
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
    for (const p of started.splice(0)) {
      p.kill("SIGKILL");
      await p.exited;
    }
    ws?.cleanup();
    ws = undefined;
  }, 30_000);

  for (const c of SERVER_CASES) {
    test(`${c.name}: agentd mcp tools, agentd mcp call, and one run through its tool`, async () => {
      ws = new CliWorkspace();
      const config = ws.writeConfig({ mcpServers: { peer: await c.entry(ws.dir, started) } });
      const tools = await ws.run(["mcp", "peer", "tools", "--config", config]);
      expect(tools.code).toBe(0);
      expect(tools.stdout).toContain(c.tool);
      const call = await ws.run(["mcp", "peer", "call", c.tool, ...c.callArgs, "--config", config]);
      expect(call.code).toBe(0);
      expect(call.stdout).toContain(c.answer);

      gateway = await startFakeGateway({
        dialect: "openai",
        script: [
          (req) => ({ toolCalls: [{ name: toolLike(req, c.tool), arguments: c.runArgs }] }),
          (req) => ({ text: `tool said: ${req.lastToolResult}` }),
        ],
      });
      const run = await ws.run(["run", "--config", config, "Use the tool"], {
        env: { AGENT_INTELLIGENCE: gateway.url, AGENT_DIALECT: "openai", AGENT_MODEL: "test-model", AGENT_API_KEY: "sk-test" },
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(c.answer);
      expect([tools, call, run].flatMap((r) => troubleIn(r.stderr))).toEqual([]);
    }, 60_000);
  }
});
