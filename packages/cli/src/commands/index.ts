/** The command tree and each command's examples (shown by --help). */
import { type CommandDef, defineCommand } from "citty";
import { approvalsCommand, approvalsExamples } from "./approvals.ts";
import { authCommand, authExamples } from "./auth.ts";
import { conversationsCommand, conversationsExamples } from "./conversations.ts";
import { demoCommand, demoExamples } from "./demo.ts";
import { initCommand, initExamples } from "./init.ts";
import { mcpCommand, mcpExamples } from "./mcp.ts";
import { runCommand, runExamples, runNotes } from "./run.ts";
import { serveCommand, serveExamples } from "./serve.ts";
import { statusCommand, statusExamples } from "./status.ts";
import { storeCommand, storeExamples } from "./store.ts";
import { VERSION, versionCommand } from "./version.ts";

/** Commands by path, with examples for --help. */
export const commands: Record<string, { def: CommandDef<any>; examples: string[]; notes?: string[] }> = {
  "": {
    def: undefined as unknown as CommandDef<any>,
    examples: [
      "agentd demo",
      'AGENT_INTELLIGENCE=http://127.0.0.1:11434/v1 AGENT_MODEL=qwen3 agentd run "Summarise the inbox"',
      "agentd run --help",
    ],
  },
  run: { def: runCommand, examples: runExamples, notes: runNotes },
  serve: { def: serveCommand, examples: serveExamples },
  status: { def: statusCommand, examples: statusExamples },
  approvals: { def: approvalsCommand, examples: approvalsExamples },
  demo: { def: demoCommand, examples: demoExamples },
  init: { def: initCommand, examples: initExamples },
  mcp: { def: mcpCommand, examples: mcpExamples },
  store: { def: storeCommand, examples: storeExamples },
  conversations: { def: conversationsCommand, examples: conversationsExamples },
  version: { def: versionCommand, examples: ["agentd version", "agentd --version"] },
  auth: { def: authCommand, examples: authExamples },
  "auth login": { def: authCommand, examples: authExamples },
};

export const rootCommand = defineCommand({
  meta: { name: "agentd", version: VERSION, description: "A headless, cloud-native agent runtime: thinks with an LLM, acts through MCP." },
  subCommands: {
    run: runCommand,
    serve: serveCommand,
    status: statusCommand,
    approvals: approvalsCommand,
    demo: demoCommand,
    init: initCommand,
    mcp: mcpCommand,
    store: storeCommand,
    conversations: conversationsCommand,
    auth: authCommand,
    version: versionCommand,
  },
});
