/**
 * Values from the environment never reach agentd's output, whatever echoes them: a `${VAR}` expanded into a
 * model header or URL comes back in a gateway's error text, and one expanded into an MCP server's `env`
 * comes back on that server's stderr and in its tool's error. The real CLI, with debug telemetry on; the
 * secrets must appear in none of stdout and stderr, and their echoes must be there, masked.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { startEchoGateway, type EchoGateway } from "./__fixtures__/echo-gateway.ts";
import { toolLike } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";

const ECHO_SERVER = join(import.meta.dir, "__fixtures__", "echo-env-server.ts");
const GW_SECRET = "gw-7Hq2ZpX9kLm4";
const URL_SECRET = "url-R8vT3nW6yB1c";
const MCP_SECRET = "mcp-Jd5Fs0Qa2Ue8";

let ws: CliWorkspace | undefined;
let echo: EchoGateway | undefined;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await stopAllServe();
  await echo?.close();
  await gateway?.close();
  ws?.cleanup();
  ws = echo = gateway = undefined;
});

const mcpServers = () => ({ leaky: { command: process.execPath, args: [ECHO_SERVER], env: { ECHO_TOKEN: "${MCP_SECRET}" } } });
const secretEnv = { GW_SECRET, URL_SECRET, MCP_SECRET, AGENT_LOG_LEVEL: "debug" };

function expectNoSecret(out: string): void {
  for (const secret of [GW_SECRET, URL_SECRET, MCP_SECRET]) expect(out).not.toContain(secret);
}

describe("secrets from ${VAR} never reach the output", () => {
  test("a gateway echoing a header and the URL in its error, an MCP server echoing its env on stderr", async () => {
    ws = new CliWorkspace();
    echo = startEchoGateway();
    ws.writeConfig({
      model: {
        intelligence: `${echo.url}?key=\${URL_SECRET}`,
        dialect: "openai",
        name: "m",
        maxRetries: 0,
        headers: { "X-Gw": "gwsecret-${GW_SECRET}" },
      },
      mcpServers: mcpServers(),
    });
    const run = await ws.run(["run", "say hi", "--json"], { env: secretEnv });
    expect(echo.refused).toBeGreaterThan(0);
    expect(run.code).not.toBe(0);
    expectNoSecret(run.stdout);
    expectNoSecret(run.stderr);
    // The echoes were there, masked: the error line quotes the header, the server's stderr its token.
    expect(run.stderr).toContain("x-gw: gwsecret-[redacted]");
    expect(run.stderr).toContain("?key=[redacted]");
    expect(run.stderr).toContain("ECHO_TOKEN=[redacted]");
  }, 60_000);

  test("an MCP tool's error quoting its env, repeated by the model in the answer", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) => ({ toolCalls: [{ name: toolLike(req, "whoami"), arguments: {} }] }),
        (req) => ({ text: `The tool said: ${req.lastToolResult}` }),
      ],
    });
    ws.writeConfig({ model: { intelligence: gateway.url, dialect: "openai", name: "m" }, mcpServers: mcpServers() });
    const run = await ws.run(["run", "who are you?", "--json"], { env: secretEnv });
    expect(run.code).toBe(0);
    expectNoSecret(run.stdout);
    expectNoSecret(run.stderr);
    expect(JSON.parse(run.stdout).text).toContain("ECHO_TOKEN=[redacted]");
  }, 60_000);

  test("agentd serve: a caller whose run failed on the echoing gateway is not handed the secret", async () => {
    ws = new CliWorkspace();
    echo = startEchoGateway();
    ws.writeConfig({
      model: { intelligence: echo.url, dialect: "openai", name: "m", maxRetries: 0, headers: { "X-Gw": "gwsecret-${GW_SECRET}" } },
    });
    const serve = await startServe(["--http", "127.0.0.1:0", "--grace", "1s"], { env: { GW_SECRET }, cwd: ws.dir });
    const session = await openSession(serve.url);
    const ran = await call(serve.url, session, 1, "tools/call", { name: "agent.run", arguments: { instruction: "say hi", runId: "r1" } });
    const answer = JSON.stringify(ran.response);
    expect(ran.response.result.isError).toBe(true);
    expect(answer).toContain("x-gw: gwsecret-[redacted]");
    expect(answer).not.toContain(GW_SECRET);
    const record = JSON.stringify((await call(serve.url, session, 2, "resources/read", { uri: "agent://runs/r1" })).response);
    expect(record).toContain("[redacted]");
    expect(record).not.toContain(GW_SECRET);
    expectNoSecret(JSON.stringify(serve.events()));
  }, 60_000);
});
