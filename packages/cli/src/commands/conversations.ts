/**
 * `agentd conversations list | show ID | rm ID`: the conversations `agentd run --continue`, `--resume` and
 * `--conversation` keep, where `agentd run` keeps them (`durability.store` when configured, else the local
 * state directory; docs/conversations.md). Only the CLI's own (principal `local`) are shown or removed.
 */
import { AgentdError, type Conversation } from "@agentd/sdk";
import { conversationsFromConfig } from "@agentd/sdk/agent";
import { resolveConfig } from "@agentd/sdk/config";
import { defineCommand } from "citty";
import { conversationScope } from "../modes/conversation-flags.ts";
import { stderrLogger } from "../telemetry.ts";
import { configArgs, overridesFrom } from "./shared-args.ts";

export const conversationsExamples = [
  "agentd conversations list                    # yours, newest first: id, last update, turns, title",
  "agentd conversations list --json",
  "agentd conversations show c-1b2c…            # its runs, then its messages, oldest first",
  "agentd conversations rm c-1b2c…",
  'agentd run --continue "now draft replies"   # continue the newest of this config',
  'agentd run --resume c-1b2c… "and the third?"',
];

const ACTIONS = ["list", "show", "rm"] as const;

/** One line a message for `show`: who said what (tool calls and results summarised, reasoning left out). */
function renderMessages(c: Conversation): string {
  const lines = c.messages.map((m) => {
    if (m.role === "user" || m.role === "system") return `${m.role}: ${m.content}`;
    if (m.role === "tool")
      return `tool: ${m.content.map((p) => `${p.toolName} → ${p.output.slice(0, 120).replace(/\s+/g, " ")}`).join("; ")}`;
    const text = m.content.flatMap((p) => (p.type === "text" ? [p.text] : p.type === "tool-call" ? [`[calls ${p.toolName}]`] : []));
    return `assistant: ${text.join(" ")}`;
  });
  const dropped = c.dropped ? [`(${c.dropped} older messages were dropped to keep it within its bound)`] : [];
  // The runs by id, oldest first: a served one is read as agent://runs/{runId} (the link back is its conversationId).
  const runs = c.runs.length ? [`runs: ${c.runs.join(", ")}`] : [];
  return `${[`conversation ${c.id} · ${c.runs.length} runs · updated ${c.updatedAt}`, ...runs, ...dropped, ...lines].join("\n")}\n`;
}

export const conversationsCommand = defineCommand({
  meta: { name: "conversations", description: "List, show or remove the conversations agentd run --continue/--resume continues." },
  args: {
    action: { type: "positional", required: false, description: "list (default), show ID or rm ID" },
    id: { type: "positional", required: false, description: "The conversation's id (show, rm)" },
    ...configArgs,
    json: { type: "boolean", description: "Print JSON (list: an array; show: the whole conversation)" },
  },
  async run({ args, rawArgs }) {
    const action = (args.action ?? "list") as (typeof ACTIONS)[number];
    if (!ACTIONS.includes(action))
      throw new AgentdError("E_USAGE", `unknown action '${args.action}': use agentd conversations list, show ID or rm ID`);
    if (action !== "list" && !args.id)
      throw new AgentdError("E_USAGE", `agentd conversations ${action} needs the conversation's id (agentd conversations list shows them)`);
    const resolved = await resolveConfig({ configPath: args.config, overrides: overridesFrom(args, rawArgs) });
    const logger = stderrLogger();
    const conversations = conversationsFromConfig(resolved.config, logger);
    const owner = "local";
    const out = (s: string) => process.stdout.write(s);
    try {
      if (action === "list") {
        const all = await conversations.store.list(owner);
        if (args.json) return void out(`${JSON.stringify(all)}\n`);
        if (all.length === 0) return void out(`no conversations yet (kept in ${conversations.where})\n`);
        const here = conversationScope(resolved);
        for (const c of all)
          out(`${c.id}  ${c.updatedAt}  ${c.runs} runs  ${c.messages} messages${c.scope === here ? "" : "  (other config)"}  ${c.title}\n`);
        return;
      }
      const id = String(args.id);
      const found = await conversations.store.get(id, owner);
      if (!found) throw new AgentdError("E_USAGE", `no conversation ${id}: \`agentd conversations list\` shows yours`);
      if (action === "show") return void out(args.json ? `${JSON.stringify(found.conversation)}\n` : renderMessages(found.conversation));
      await conversations.store.delete(id, owner);
      out(`removed conversation ${id}\n`);
    } finally {
      await conversations.close();
    }
  },
});
