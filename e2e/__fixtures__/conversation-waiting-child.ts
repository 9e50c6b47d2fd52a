/**
 * One process of a run that continues a conversation and waits for a decision: an agent (`createAgent`, the
 * openai adapter against the fake gateway, the fake MCP server over stdio) whose `fs/delete_*` calls need a
 * decision and nobody in code answers. `run RUN_ID INPUT` runs INPUT in the conversation `inbox` and prints
 * the result; `resume RUN_ID DECISIONS_JSON` resumes the run and prints the result; `show` prints the stored
 * conversation. A failure prints `{ "error": code, "message": line }` and exits 2. Conversations and waiting
 * runs are kept in the state directory `XDG_STATE_HOME`, shared by every process started on it.
 *
 * Env: GATEWAY_URL, SERVER_CONFIG (the fake server's `{ command, args }` as JSON).
 */
import { createAgent } from "@agentd/sdk";
import { createModel } from "@agentd/adapters";

const [mode, runId, arg] = process.argv.slice(2);
const agent = createAgent({
  model: createModel({ dialect: "openai", baseURL: process.env.GATEWAY_URL!, model: "m", apiKey: "k" }),
  mcpServers: { fs: JSON.parse(process.env.SERVER_CONFIG!) },
  approvals: { rules: [{ tool: "fs/delete_*", decision: "ask" }] },
});
let code = 0;
try {
  const result =
    mode === "run"
      ? await agent.run(arg!, { runId, conversation: "inbox" })
      : mode === "resume"
        ? await agent.resume(runId!, JSON.parse(arg ?? "{}"))
        : await agent.conversations.get("inbox");
  process.stdout.write(`${JSON.stringify(result ?? null)}\n`);
} catch (e) {
  const err = e as { code?: string; message?: string };
  process.stdout.write(`${JSON.stringify({ error: err.code ?? "error", message: err.message })}\n`);
  code = 2;
} finally {
  await agent.close();
}
process.exitCode = code;
