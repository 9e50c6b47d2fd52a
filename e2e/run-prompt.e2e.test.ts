/**
 * `agentd run --prompt SERVER/NAME --arg k=v` against server-everything's prompts: the prompt's messages
 * are the run's instruction, an embedded resource's text arrives fenced as untrusted data; a missing
 * required argument is one clear line (exit 2).
 */
import { afterEach, expect, test } from "bun:test";
import { resolve } from "node:path";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace, REPO_ROOT } from "@agentd/test-support/cli-process";

const EVERYTHING = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
let ws: CliWorkspace;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  ws?.cleanup();
});

test("a server prompt with arguments drives the run; embedded resources are fenced; missing arguments are named", async () => {
  ws = new CliWorkspace();
  gateway = await startFakeGateway({ dialect: "openai", onExhausted: "repeat-last", script: [{ text: "done" }] });
  const env = { AGENT_INTELLIGENCE: gateway.url, AGENT_DIALECT: "openai", AGENT_MODEL: "m", AGENT_API_KEY: "k" };
  const config = ws.writeConfig({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } });

  const run = await ws.run(
    ["run", "--config", config, "--prompt", "everything/args-prompt", "--arg", "city=Oslo", "--arg", "state=Viken"],
    { env },
  );
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("done\n");
  const user = gateway.requests[0]!.messages.filter((m) => m.role === "user")
    .map((m) => m.text)
    .join("\n");
  expect(user).toContain("What's weather in Oslo, Viken?");

  const withResource = await ws.run(
    ["run", "--config", config, "--prompt", "everything/resource-prompt", "--arg", "resourceType=Text", "--arg", "resourceId=1"],
    { env },
  );
  expect(withResource.code).toBe(0);
  const text = gateway.requests[1]!.messages.filter((m) => m.role === "user")
    .map((m) => m.text)
    .join("\n");
  expect(text).toMatch(/<resource-text-[a-z2-7]{20} uri="[^"]+" untrusted="true">/);

  const missing = await ws.run(["run", "--config", config, "--prompt", "everything/args-prompt"], { env });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("prompt everything/args-prompt needs --arg city=…");
}, 60_000);

test("not a terminal: a missing argument is one line naming --arg; a server's prompts switched off are refused before connecting", async () => {
  ws = new CliWorkspace();
  const config = ws.writeConfig({
    mcpServers: {
      everything: { command: process.execPath, args: [EVERYTHING] },
      quiet: { command: process.execPath, args: [EVERYTHING], prompts: false },
    },
  });
  const env = { AGENT_INTELLIGENCE: "http://127.0.0.1:9/v1", AGENT_MODEL: "m" };
  const missing = await ws.run(["run", "--config", config, "--prompt", "everything/completable-prompt", "--arg", "department=Sales"], {
    env,
  });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain(
    "agentd: prompt everything/completable-prompt needs --arg name=… (in a terminal, agentd asks for it with the server's completions)\n",
  );
  for (const args of [
    ["run", "--config", config, "--prompt", "quiet/args-prompt", "--arg", "city=Oslo"],
    ["mcp", "--config", config, "quiet", "prompts"],
    ["mcp", "--config", config, "quiet", "complete", "completable-prompt", "department"],
  ]) {
    const off = await ws.run(args, { env });
    expect(off.code).toBe(2);
    expect(off.stderr).toContain(
      "prompts of MCP server 'quiet' are switched off (mcpServers.quiet.prompts: false); remove the switch to use them",
    );
    // Refused before the server was started: it never logged its start.
    expect(off.stderr).not.toContain("Starting default");
  }
}, 60_000);
