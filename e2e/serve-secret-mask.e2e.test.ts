/**
 * A secret a peer echoes reaches no surface of agentd: a gateway quoting the request's headers (so the
 * model's answer holds `authorization: Bearer <AGENT_API_KEY>`) and a stdio server quoting its `${VAR}`
 * environment. Real processes: `agentd serve --http --console --a2a` with its fleet history in an `agentd
 * store --dir` child; the MCP caller's answer, `agent://runs/{id}`, the console's snapshot, the store's files
 * on disk, an A2A task's artifact and its saved conversation all show `[redacted]` where the key was. And `agentd run`: `--stream`
 * with the secret written over three deltas, `--json` with a server whose secret comes from an editor
 * config's `envFile`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClientFactory } from "@a2a-js/sdk/client";
import { Role } from "@a2a-js/sdk";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";
import { storeDocumentsText } from "@agentd/test-support/store-files";
import { API_KEY, modelEnv, toolLike } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";

const ECHO_SERVER = join(import.meta.dir, "__fixtures__", "echo-env-server.ts");
const MCP_SECRET = "mcp-Zt4Wq8Lp1Xr6";
const FILE_SECRET = "envfile-Kc3Nb7Vy5Hs2";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await stopAllServe();
  await gateway?.close();
  ws?.cleanup();
  ws = gateway = undefined;
}, 30_000);

const textOfResult = (response: any): string => response.result.content.map((c: { text?: string }) => c.text ?? "").join("");

describe("secrets a peer echoes are masked on every surface", () => {
  test("agentd serve: the MCP answer, agent://runs/{id}, the console snapshot, the store and an A2A artifact", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      requireApiKey: API_KEY,
      script: [{ echo: "headers" }],
      onExhausted: "repeat-last",
    });
    const storeDir = join(ws.dir, "store");
    ws.writeConfig({ durability: { store: { command: process.execPath, args: [CLI_MAIN, "store", "--dir", storeDir] } } });
    const serve = await startServe(["--http", "127.0.0.1:0", "--console", "--a2a", "--grace", "1s"], {
      env: { ...modelEnv(gateway), AGENT_LOG_LEVEL: "debug" },
      cwd: ws.dir,
    });

    const session = await openSession(serve.url);
    const ran = await call(serve.url, session, 1, "tools/call", { name: "agent.run", arguments: { instruction: "echo", runId: "r1" } });
    // The gateway did echo the key: the answer quotes the header, masked.
    expect(textOfResult(ran.response)).toContain("authorization: Bearer [redacted]");
    expect(JSON.stringify(ran.response)).not.toContain(API_KEY);

    const record = JSON.stringify((await call(serve.url, session, 2, "resources/read", { uri: "agent://runs/r1" })).response);
    expect(record).toContain("Bearer [redacted]");
    expect(record).not.toContain(API_KEY);

    const origin = serve.url.origin;
    const snapshot = await (await fetch(`${origin}/console/api/snapshot`)).text();
    expect(snapshot).toContain('"r1"');
    expect(snapshot).toContain("Bearer [redacted]");
    expect(snapshot).not.toContain(API_KEY);

    await serve.waitForEvent((e) => e.event === "run-history.written" && e.runId === "r1");
    const stored = storeDocumentsText(storeDir).join("\n");
    expect(stored).toContain("Bearer [redacted]");
    expect(stored).not.toContain(API_KEY);

    const a2a = await new ClientFactory().createFromUrl(origin);
    const task = await a2a.sendMessage({
      message: {
        messageId: "m-1",
        role: Role.ROLE_USER,
        parts: [{ content: { $case: "text", value: "echo" }, metadata: undefined, filename: "", mediaType: "" }],
        contextId: "",
        taskId: "",
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      tenant: "",
      configuration: undefined,
      metadata: undefined,
    });
    if (!("artifacts" in task)) throw new Error(`expected a task, got ${JSON.stringify(task)}`);
    const artifact = JSON.stringify(task.artifacts);
    expect(artifact).toContain("authorization: Bearer [redacted]");
    expect(JSON.stringify(task)).not.toContain(API_KEY);
    expect(JSON.stringify(serve.events())).not.toContain(API_KEY);
    // The task's context is a conversation in the store: its saved turns are masked too.
    const withConversation = storeDocumentsText(storeDir).join("\n");
    expect(withConversation).toContain(`"id":"${task.contextId}"`);
    expect(withConversation).not.toContain(API_KEY);
  }, 90_000);

  test("agentd serve: a stdio server's ${VAR} secret, echoed by its tool and repeated by the model, is masked in the answer", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      requireApiKey: API_KEY,
      script: [
        (req) => ({ toolCalls: [{ name: toolLike(req, "whoami"), arguments: {} }] }),
        (req) => ({ text: `The tool said: ${req.lastToolResult}` }),
      ],
    });
    ws.writeConfig({ mcpServers: { leaky: { command: process.execPath, args: [ECHO_SERVER], env: { ECHO_TOKEN: "${MCP_SECRET}" } } } });
    const serve = await startServe(["--http", "127.0.0.1:0", "--grace", "1s"], { env: { ...modelEnv(gateway), MCP_SECRET }, cwd: ws.dir });
    const session = await openSession(serve.url);
    const ran = await call(serve.url, session, 1, "tools/call", { name: "agent.run", arguments: { instruction: "who?", runId: "w1" } });
    expect(textOfResult(ran.response)).toContain("ECHO_TOKEN=[redacted]");
    expect(JSON.stringify(ran.response)).not.toContain(MCP_SECRET);
    const record = JSON.stringify((await call(serve.url, session, 2, "resources/read", { uri: "agent://runs/w1" })).response);
    expect(record).toContain("ECHO_TOKEN=[redacted]");
    expect(record).not.toContain(MCP_SECRET);
  }, 60_000);

  test("agentd run --stream: a secret the model writes over several deltas is masked in the deltas too", async () => {
    ws = new CliWorkspace();
    // The gateway streams an answer in three deltas: 10 + 16 + 10 characters put the secret across all three.
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) => ({ toolCalls: [{ name: toolLike(req, "whoami"), arguments: {} }] }),
        (req) => ({ text: `${"A".repeat(10)}${/ECHO_TOKEN=(\S+)/.exec(req.lastToolResult ?? "")?.[1] ?? "?"}${"B".repeat(10)}` }),
      ],
    });
    ws.writeConfig({
      model: { intelligence: gateway.url, dialect: "openai", name: "m" },
      mcpServers: { leaky: { command: process.execPath, args: [ECHO_SERVER], env: { ECHO_TOKEN: "${MCP_SECRET}" } } },
    });
    const run = await ws.run(["run", "who are you?", "--stream"], { env: { MCP_SECRET } });
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const streamed = lines.flatMap((e) => (e.type === "text-delta" ? [e.delta as string] : [])).join("");
    expect(streamed.startsWith("A".repeat(10))).toBe(true);
    expect(streamed).toContain("[redacted]");
    expect(streamed.endsWith("B".repeat(10))).toBe(true);
    expect(streamed).not.toContain(MCP_SECRET.slice(3));
    expect(run.stdout).not.toContain(MCP_SECRET);
  }, 60_000);

  test("agentd run --json: a value from an editor config's envFile, echoed by the server's tool, is masked", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) => ({ toolCalls: [{ name: toolLike(req, "whoami"), arguments: {} }] }),
        (req) => ({ text: `The tool said: ${req.lastToolResult}` }),
      ],
    });
    writeFileSync(join(ws.dir, "leaky.env"), `ECHO_TOKEN=${FILE_SECRET}\n`);
    const mcpConfig = join(ws.dir, "mcp.json");
    writeFileSync(
      mcpConfig,
      JSON.stringify({ servers: { leaky: { command: process.execPath, args: [ECHO_SERVER], envFile: join(ws.dir, "leaky.env") } } }),
    );
    ws.writeConfig({ model: { intelligence: gateway.url, dialect: "openai", name: "m" } });
    const run = await ws.run(["run", "who are you?", "--json", "--mcp-config", mcpConfig], { env: { AGENT_LOG_LEVEL: "debug" } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).text).toContain("ECHO_TOKEN=[redacted]");
    expect(run.stdout).not.toContain(FILE_SECRET);
    expect(run.stderr).not.toContain(FILE_SECRET);
  }, 60_000);
});
