/**
 * `agentd run --continue | --resume ID | --conversation NAME`: which conversation a once run continues, and
 * the scope conversations are started under (the config file), so `--continue` picks the newest of this
 * config's. The CLI's principal is `local` (the same owner a served run without credentials has).
 */
import { resolve } from "node:path";
import { AgentdError, type ConversationRef } from "@agentd/sdk";
import type { ResolvedConfig } from "@agentd/sdk/config";

/** The scope of the conversations started with this configuration: its file, or `none`. */
export const conversationScope = (resolved: Pick<ResolvedConfig, "file">): string => (resolved.file ? resolve(resolved.file) : "none");

/**
 * The conversation the flags name, undefined when none does; one line when they contradict each other. In a
 * long-running mode only `--conversation NAME` applies: every triggered run continues NAME.
 */
export function conversationFromFlags(args: Record<string, unknown>, mode: string): ConversationRef | undefined {
  const named = [
    args.continue === true ? "--continue" : undefined,
    typeof args.resume === "string" ? "--resume" : undefined,
    typeof args.conversation === "string" ? "--conversation" : undefined,
  ].filter((x) => x !== undefined);
  if (named.length === 0) return undefined;
  if (named.length > 1)
    throw new AgentdError(
      "E_USAGE",
      `${named.join(" and ")} each name a conversation: choose one (--continue: the newest; --resume ID; --conversation NAME)`,
    );
  if (mode !== "once" && named[0] !== "--conversation")
    throw new AgentdError(
      "E_USAGE",
      `${named[0]} applies to a single run: drop the mode flags, or use --conversation NAME so every run continues NAME`,
    );
  if (args.continue === true) return { newest: true };
  if (typeof args.resume === "string") {
    if (!args.resume.trim())
      throw new AgentdError("E_USAGE", "--resume needs the conversation's id (`agentd conversations list` shows them)");
    return { id: args.resume.trim() };
  }
  const name = String(args.conversation).trim();
  if (!name) throw new AgentdError("E_USAGE", "--conversation needs a name, e.g. --conversation inbox-triage");
  return { id: name, create: true };
}
