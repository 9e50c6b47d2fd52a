/** `agentd mcp` declares what the config's capabilities block switches on, like `agentd run` does. */
import { afterEach, expect, test } from "bun:test";
import { fakeServerCommand, type FakeServerCommand } from "@agentd/testkit";
import { CliWorkspace } from "@agentd/test-support/cli-process";

let ws: CliWorkspace;
let fake: FakeServerCommand;
afterEach(() => {
  ws?.cleanup();
  fake?.dispose();
});

test("roots and the elicitation policy from the config reach the server", async () => {
  ws = new CliWorkspace();
  fake = fakeServerCommand({
    name: "asks",
    tools: [
      { name: "roots", clientRequest: { method: "roots/list" } },
      {
        name: "ask",
        clientRequest: {
          method: "elicitation/create",
          params: { mode: "form", message: "Name?", requestedSchema: { type: "object", properties: { n: { type: "string" } } } },
        },
      },
    ],
  });
  const config = ws.writeConfig({ mcpServers: { s: fake.config }, capabilities: { roots: ["/data"], elicitation: "decline" } });
  const roots = await ws.run(["mcp", "s", "call", "roots", "--config", config]);
  expect(roots.code).toBe(0);
  expect(roots.stdout).toContain("file:///data");
  const ask = await ws.run(["mcp", "s", "call", "ask", "--config", config]);
  expect(ask.code).toBe(0);
  expect(ask.stdout).toContain("decline");
});

test("what a failing server prints on stderr is shown", async () => {
  ws = new CliWorkspace();
  const config = ws.writeConfig({
    mcpServers: { dead: { command: process.execPath, args: ["-e", "console.error('FATAL: missing DATABASE_URL'); process.exit(1)"] } },
  });
  const run = await ws.run(["mcp", "dead", "tools", "--config", config]);
  expect(run.code).toBe(4);
  expect(run.stderr).toContain("FATAL: missing DATABASE_URL");
});
