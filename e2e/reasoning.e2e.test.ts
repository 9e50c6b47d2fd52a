/**
 * End to end: `agentd run --json` with `model.thinking` and `model.promptCache` from the config file,
 * through the real process, against the fake anthropic gateway enforcing its thinking rules: the result's
 * usage and the `run.end` telemetry carry the cache and reasoning split; the reasoning stays out of stdout.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { startFakeGateway, type FakeGateway, type RecordedRequest } from "@agentd/testkit";
import { CliWorkspace, events } from "@agentd/test-support/cli-process";

let ws: CliWorkspace;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  ws?.cleanup();
});

const echoTool = (req: RecordedRequest) => req.tools.find((n) => n.endsWith("echo")) ?? "echo";

describe("agentd run with thinking and prompt caching", () => {
  test("--json reports the usage split; run.end telemetry carries it; the thinking never reaches stdout", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "anthropic",
      script: [
        (req) => ({ reasoning: "secret plan: echo first", toolCalls: [{ name: echoTool(req), arguments: { text: "hi" } }] }),
        { reasoning: "secret plan: answer", text: "Echoed." },
      ],
    });
    const config = ws.writeConfig({
      model: { thinking: { budgetTokens: 1024 }, promptCache: { ttl: "1h" } },
      mcpServers: { rec: ws.recordingServer() },
    });
    const run = await ws.run(["run", "--config", config, "--json", "Echo hi"], {
      env: { AGENT_INTELLIGENCE: gateway.url, AGENT_DIALECT: "anthropic", AGENT_MODEL: "claude-test", AGENT_API_KEY: "sk-test-key-123" },
    });
    expect(run.code).toBe(0);
    expect(gateway.requests.map((r) => r.rejected)).toEqual([undefined, undefined]);
    const sent = gateway.requests[1]?.body as { thinking: unknown; messages: Array<{ role: string; content: Array<{ type: string }> }> };
    expect(sent.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(sent.messages[1]?.content[0]?.type).toBe("thinking");
    expect(gateway.requests[0]?.bodyText).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}');
    const out = JSON.parse(run.stdout);
    expect(out.text).toBe("Echoed.");
    expect(run.stdout).not.toContain("secret plan");
    expect(out.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(out.usage.cacheReadTokens).toBeGreaterThan(0);
    expect(out.usage.reasoningTokens).toBeGreaterThan(0);
    const end = events(run).find((e) => e.event === "run.end");
    expect(end?.usage).toEqual(out.usage);
    expect(run.stderr).not.toContain("secret plan");
  });
});
