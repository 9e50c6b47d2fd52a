/** Gateway scripts and small helpers shared by the modes' end-to-end tests. */
import type { FakeGateway, RecordedRequest, Turn } from "@agentd/testkit";

/** The model environment for a fake gateway (openai dialect). */
export const modelEnv = (g: FakeGateway) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: "openai",
  AGENT_MODEL: "test-model",
  AGENT_API_KEY: "sk-modes-test",
});

/** The offered tool whose name ends with `suffix`. */
export function toolLike(req: RecordedRequest, suffix: string): string {
  const t = req.tools.find((n) => n.endsWith(suffix));
  if (!t) throw new Error(`no tool ending with ${suffix} in ${req.tools.join(",")}`);
  return t;
}

/** The first user message of a request, as sent: the run's rendered instruction, fences and all. */
export const rawInstructionOf = (req: RecordedRequest): string => req.messages.find((m) => m.role === "user")?.text ?? "";

/** `{{resource.text}}` arrives fenced as untrusted data; this is the instruction with each fence reduced to its text. */
export const instructionOf = (req: RecordedRequest): string =>
  rawInstructionOf(req).replace(/<resource-text-([a-z2-7]{20}) uri="[^"]*" untrusted="true">\n([\s\S]*?)\n<\/resource-text-\1>/g, "$2");

/**
 * Every run: call the tool ending with `tool` once (so the server records the run id in `_meta`), then
 * answer `done: <instruction>`. Use with `onExhausted: "repeat-last"`.
 */
export const callThenAnswer =
  (tool: string, args: Record<string, unknown> = {}): Turn =>
  (req) =>
    req.lastToolResult !== undefined
      ? { text: `done: ${instructionOf(req)}` }
      : { toolCalls: [{ name: toolLike(req, tool), arguments: args }] };

/** The requests that began a run (no tool result yet), in order. */
export const runRequests = (g: FakeGateway): RecordedRequest[] => g.requests.filter((r) => r.lastToolResult === undefined);
