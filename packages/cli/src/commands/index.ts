/**
 * The command tree and each command's examples (shown by --help). Each command's module is loaded when that
 * command runs (or its help is shown), not at start: a one-shot command pays only for its own graph — the
 * others pull in the terminal prompts, the store, the triggers, which is start-up time on every run
 * (`agentd demo`'s wall time is measured against its peers, bench/startup).
 */
import { type CommandDef, defineCommand } from "citty";
import { VERSION } from "../version-text.ts";

/** A command's definition with its --help examples and notes. */
export interface CommandEntry {
  def: CommandDef<any>;
  examples: string[];
  notes?: string[];
}

/** Loaders by command path ("" is the root, whose examples live here). */
const loaders: Record<string, () => Promise<CommandEntry>> = {
  run: async () => {
    const m = await import("./run.ts");
    return { def: m.runCommand, examples: m.runExamples, notes: m.runNotes };
  },
  serve: async () => {
    const m = await import("./serve.ts");
    return { def: m.serveCommand, examples: m.serveExamples };
  },
  status: async () => {
    const m = await import("./status.ts");
    return { def: m.statusCommand, examples: m.statusExamples };
  },
  approvals: async () => {
    const m = await import("./approvals.ts");
    return { def: m.approvalsCommand, examples: m.approvalsExamples };
  },
  demo: async () => {
    const m = await import("./demo.ts");
    return { def: m.demoCommand, examples: m.demoExamples };
  },
  init: async () => {
    const m = await import("./init.ts");
    return { def: m.initCommand, examples: m.initExamples };
  },
  mcp: async () => {
    const m = await import("./mcp.ts");
    return { def: m.mcpCommand, examples: m.mcpExamples };
  },
  store: async () => {
    const m = await import("./store.ts");
    return { def: m.storeCommand, examples: m.storeExamples };
  },
  conversations: async () => {
    const m = await import("./conversations.ts");
    return { def: m.conversationsCommand, examples: m.conversationsExamples };
  },
  auth: async () => {
    const m = await import("./auth.ts");
    return { def: m.authCommand, examples: m.authExamples };
  },
  version: async () => {
    const m = await import("./version.ts");
    return { def: m.versionCommand, examples: ["agentd version", "agentd --version"] };
  },
};

/** The root's examples (its definition is `rootCommand`). */
export const rootExamples = [
  "agentd demo",
  'AGENT_INTELLIGENCE=http://127.0.0.1:11434/v1 AGENT_MODEL=qwen3 agentd run "Summarise the inbox"',
  "agentd run --help",
];

/** Paths with examples of their own for --help: every command, and `auth login` (shown with auth's). */
export const COMMAND_PATHS = [...Object.keys(loaders), "auth login"];

/** A command's entry by path (`"auth login"` answers auth's examples), loading its module; undefined if none. */
export async function loadCommand(path: string): Promise<CommandEntry | undefined> {
  return loaders[path === "auth login" ? "auth" : path]?.();
}

const definitionOf = (name: string) => async () => (await loaders[name]!()).def;

export const rootCommand = defineCommand({
  meta: { name: "agentd", version: VERSION, description: "A headless, cloud-native agent runtime: thinks with an LLM, acts through MCP." },
  subCommands: Object.fromEntries(Object.keys(loaders).map((name) => [name, definitionOf(name)])),
});
