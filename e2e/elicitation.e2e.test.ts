/**
 * End to end: server-everything's elicitation tools (registered only when the client declares elicitation,
 * the URL one only for URL mode) through the real `agentd run` process, answered by each headless policy.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace, events, REPO_ROOT } from "@agentd/test-support/cli-process";

const EVERYTHING = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
let ws: CliWorkspace;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  ws?.cleanup();
});

const modelEnv = (g: FakeGateway) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: "openai",
  AGENT_MODEL: "test-model",
  AGENT_API_KEY: "sk-test",
});

/** Run once: the model calls the tool named like `tool` with `args`, then answers with the tool's result. */
async function callThrough(
  elicitation: unknown,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<{ result: string; tools: string[]; run: Awaited<ReturnType<CliWorkspace["run"]>> }> {
  ws = new CliWorkspace();
  let tools: string[] = [];
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => {
        tools = req.tools;
        const name = req.tools.find((t) => t.endsWith(tool));
        return name ? { toolCalls: [{ name, arguments: args }] } : { text: "NO-SUCH-TOOL" };
      },
      (req) => ({ text: req.lastToolResult ?? "" }),
    ],
  });
  const config = ws.writeConfig({
    mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
    capabilities: { elicitation },
  });
  const run = await ws.run(["run", "--config", config, "Ask me"], { env: modelEnv(gateway) });
  expect(run.code).toBe(0);
  return { result: run.stdout, tools, run };
}

describe("headless elicitation policies against server-everything (agentd run)", () => {
  test("decline", async () => {
    const { result } = await callThrough("decline", "trigger-elicitation-request");
    expect(result).toContain('"action": "decline"');
  });

  test("cancel", async () => {
    const { result } = await callThrough("cancel", "trigger-elicitation-request");
    expect(result).toContain('"action": "cancel"');
  });

  test("defaults: the required name has no default, so it declines", async () => {
    const { result, run } = await callThrough("defaults", "trigger-elicitation-request");
    expect(result).toContain('"action": "decline"');
    expect(events(run).some((e) => e.event === "elicitation.answered" && e.policy === "defaults")).toBe(true);
  });

  test("answers: accepted with the configured answers completed by the schema's defaults", async () => {
    const { result } = await callThrough(
      { policy: "answers", answers: { name: "Ada Lovelace", email: "ada@example.com", check: true } },
      "trigger-elicitation-request",
    );
    expect(result).toContain('"action": "accept"');
    expect(result).toContain("- Name: Ada Lovelace");
    expect(result).toContain("- Favorite Integer: 42"); // the schema's default
    expect(result).toContain("- Email: ada@example.com");
  });

  test("answers that break the requested schema are declined", async () => {
    const { result } = await callThrough({ policy: "answers", answers: { name: "Ada", integer: 1000 } }, "trigger-elicitation-request");
    expect(result).toContain('"action": "decline"');
  });

  test("URL mode: not declared by default (the tool is not offered); with url: log it is accepted and logged", async () => {
    const off = await callThrough("decline", "trigger-url-elicitation", { url: "https://example.com/consent", message: "open it" });
    expect(off.tools.some((t) => t.endsWith("trigger-url-elicitation"))).toBe(false);
    await gateway?.close();
    ws.cleanup();
    const on = await callThrough({ policy: "decline", url: "log" }, "trigger-url-elicitation", {
      url: "https://example.com/consent",
      message: "open it",
    });
    expect(on.result).toContain("accept");
    expect(events(on.run).find((e) => e.event === "elicitation.url")?.url).toBe("https://example.com/consent");
  });
});
