/**
 * Shared setup of the `agentd serve` tests: a temp workspace whose config names the recording MCP server,
 * a fake OpenAI-dialect gateway, the environment pointing agentd at it, and a gate a scripted turn can wait
 * on (so a test decides when the model answers).
 */
import { startFakeGateway, type FakeGateway, type RecordedRequest, type Turn } from "@agentd/testkit";
import { CliWorkspace } from "@agentd/test-support/cli-process";

/** The API key the fake gateway requires; it must never show up in telemetry or notifications. */
export const API_KEY = "sk-serve-proof-secret-42";

/** The model environment of a serve process. */
export const modelEnv = (g: FakeGateway) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: "openai",
  AGENT_MODEL: "test-model",
  AGENT_API_KEY: API_KEY,
});

/** The qualified name of a tool offered to the model that ends with `suffix`. */
export function toolLike(req: RecordedRequest, suffix: string): string {
  const t = req.tools.find((n) => n.endsWith(suffix));
  if (!t) throw new Error(`no tool ending with ${suffix} in ${req.tools.join(",")}`);
  return t;
}

/** A promise a test resolves when it chooses. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

/** Script: call the recording server's `echo`, then answer with what it returned. */
export function echoThenAnswer(beforeAnswer?: Promise<void>): Turn[] {
  return [
    (req) => ({ toolCalls: [{ name: toolLike(req, "echo"), arguments: { text: "hello over serve" } }] }),
    async (req) => {
      await beforeAnswer;
      return { text: `The tool said: ${req.lastToolResult?.match(/echo: hello over serve/)?.[0] ?? "nothing"}` };
    },
  ];
}

/** A workspace with the recording server configured, and a gateway playing `script`. */
export async function serveWorld(script: Turn[], options: { onExhausted?: "error" | "repeat-last" } = {}) {
  const ws = new CliWorkspace();
  const gateway = await startFakeGateway({ dialect: "openai", requireApiKey: API_KEY, script, ...options });
  const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
  return {
    ws,
    gateway,
    config,
    env: modelEnv(gateway),
    async close() {
      await gateway.close();
      ws.cleanup();
    },
  };
}
