/**
 * The loop benchmark's model: one dynamic turn replayed for every request — call the `echo` tool until the
 * conversation holds TOOL_TURNS tool results, then answer with text. So every run is TOOL_TURNS tool turns
 * plus one final turn, whatever framework drives it, and any number of runs can share one gateway.
 */
import type { RecordedRequest, StaticTurn } from "@agentd/testkit";

/** Tool turns per run. */
export const TOOL_TURNS = 10;
/** The final answer's text. */
export const FINAL_TEXT = "done after ten echoes";

/** The turn for one request. */
export function loopTurn(request: RecordedRequest): StaticTurn {
  const results = request.messages.reduce((n, m) => n + m.toolResults.length, 0);
  if (results >= TOOL_TURNS) return { text: FINAL_TEXT };
  const name = request.tools.find((t) => t === "echo" || t.endsWith("echo"));
  if (!name) throw new Error(`the loop script expected an echo tool, got: ${request.tools.join(", ")}`);
  return { toolCalls: [{ name, arguments: { text: `call ${results + 1}` } }] };
}
