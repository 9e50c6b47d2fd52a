/**
 * A run's conversation on its console page: a run that continued a conversation (its record's
 * `conversationId`) shows the conversation's id, title, size, the runs that continued it (links to their
 * pages) and its latest exchanges — each message one line per part, masked (credential shapes and the values
 * agentd holds as secrets) and bounded ({@link CONVERSATION_VIEW_LIMITS}), never the whole conversation. The
 * conversation is read as its owner (the run's principal) reads it: the console never reaches another
 * principal's through a run.
 */
import type { ModelMessage } from "../../model/language-model.ts";
import { scrubSecrets } from "../../log.ts";
import { maskArguments } from "../../loop/events.ts";
import { scopedRunId } from "../../serve/principal.ts";
import { maskSecrets } from "../../secret-values.ts";

/** The bounds of a conversation's view. */
export const CONVERSATION_VIEW_LIMITS = Object.freeze({ messages: 20, partChars: 300, runs: 20 });

/** The conversation as the console reads it (the owner's lookup of the agent's conversations). */
export interface ConsoleConversations {
  get(
    id: string,
    owner: string,
  ): Promise<
    { id: string; title?: string; updatedAt?: string; messages: readonly unknown[]; runs?: readonly string[]; dropped?: number } | undefined
  >;
}

/** One line of one message. */
export interface ExchangeLine {
  role: string;
  /** `text`, `tool-call`, `tool-result`, `reasoning`. */
  kind: string;
  text: string;
}

/** A run's conversation, as its page shows it. */
export interface ConversationView {
  id: string;
  title?: string;
  updatedAt?: string;
  /** Messages held in all, and how many the growth policy dropped from its front. */
  messages: number;
  dropped?: number;
  /** The runs that continued it, newest last, as the run history names them (the owner's ids). */
  runs: string[];
  /** Its latest messages, one line per part, masked, bounded. */
  latest: ExchangeLine[];
  /** Whether older messages were left out of `latest`. */
  earlierLeftOut: boolean;
}

/** The view of `owner`'s conversation `id`, or a line saying why there is none. */
export async function conversationView(
  source: ConsoleConversations | undefined,
  id: string,
  owner: string,
): Promise<ConversationView | { id: string; unavailable: string }> {
  if (!source) return { id, unavailable: "the conversations are not readable here" };
  let found: Awaited<ReturnType<ConsoleConversations["get"]>>;
  try {
    found = await source.get(id, owner);
  } catch (e) {
    return { id, unavailable: scrubSecrets(e instanceof Error ? e.message : String(e)) };
  }
  if (!found) return { id, unavailable: "it is no longer held (deleted or expired)" };
  const messages = found.messages as readonly ModelMessage[];
  const shown = messages.slice(-CONVERSATION_VIEW_LIMITS.messages);
  const suffix = scopedRunId({ id: owner, role: "user" }, "");
  return {
    id: found.id,
    ...(found.title ? { title: cut(found.title) } : {}),
    ...(found.updatedAt ? { updatedAt: found.updatedAt } : {}),
    messages: messages.length,
    ...(found.dropped ? { dropped: found.dropped } : {}),
    runs: (found.runs ?? [])
      .slice(-CONVERSATION_VIEW_LIMITS.runs)
      .map((r) => (suffix && r.endsWith(suffix) ? r.slice(0, -suffix.length) : r)),
    latest: maskSecrets(shown.flatMap(linesOf)),
    earlierLeftOut: messages.length > shown.length,
  };
}

/** One message as lines: its text, the calls it asked for, the results it returned. */
function linesOf(m: ModelMessage): ExchangeLine[] {
  if (m.role === "system") return [];
  if (typeof m.content === "string") return [{ role: m.role, kind: "text", text: cut(m.content) }];
  return m.content.flatMap((p): ExchangeLine[] => {
    switch (p.type) {
      case "text":
        return p.text ? [{ role: m.role, kind: "text", text: cut(p.text) }] : [];
      case "tool-call":
        return [{ role: m.role, kind: "tool-call", text: cut(`${p.toolName} ${JSON.stringify(maskArguments(p.input))}`) }];
      case "tool-result":
        return [{ role: m.role, kind: "tool-result", text: cut(`${p.toolName}${p.isError ? " (error)" : ""}: ${p.output}`) }];
      case "reasoning":
        return p.text ? [{ role: m.role, kind: "reasoning", text: cut(p.text) }] : [];
      default:
        return [];
    }
  });
}

/** Masked, on one line, cut to the bound. */
function cut(s: string): string {
  const line = scrubSecrets(s).replace(/\s+/g, " ").trim();
  return line.length > CONVERSATION_VIEW_LIMITS.partChars ? `${line.slice(0, CONVERSATION_VIEW_LIMITS.partChars - 1)}…` : line;
}
