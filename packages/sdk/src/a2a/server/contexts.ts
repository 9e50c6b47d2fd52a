/**
 * Which `contextId` a principal may send. A context is the sender's durable conversation (tasks.ts), so
 * the A2A specification's rules on context ids (§3.4.1) meet conversation ownership here, before a task
 * exists:
 * - no `contextId`: the server makes one (a fresh conversation);
 * - one the sender holds (a conversation of its, stored or still running its first task): continued;
 * - one another principal holds: refused (`InvalidParams`). "All tasks and messages with the same
 *   contextId SHOULD be treated as part of the same conversational session", and the sender may not join
 *   another's session; "if an agent cannot accept a client-provided contextId, it MUST reject the request
 *   with an error and MUST NOT generate a new contextId" — so neither a quiet fresh context under the same
 *   id nor a renamed one;
 * - one nobody holds: accepted and kept (the spec lets an agent preserve a client's id), when it can name a
 *   conversation (1-64 characters of A-Z a-z 0-9 . _ -; a server-made one always does).
 */
import { A2aError, type Message } from "../shared/types.ts";
import { isConversationId, type ServedConversations } from "../../serve/served-conversations.ts";
import type { A2aTasks } from "./tasks.ts";

/** Whether `message` names a context to admit (an answer on a task, or no contextId, has none to check). */
export const namesContext = (message: Message): boolean => !message.taskId && Boolean(message.contextId);

/** Refuse `message`'s `contextId` unless `owner` may continue or start it (see the module header). */
export async function admitContext(
  conversations: ServedConversations | undefined,
  tasks: A2aTasks,
  owner: string,
  message: Message,
): Promise<void> {
  // An answer on a task is checked against that task's context (tasks.ts); no contextId: a fresh one.
  if (!namesContext(message)) return;
  const contextId = message.contextId!;
  if (!isConversationId(contextId))
    throw new A2aError(
      "InvalidParams",
      `contextId ${JSON.stringify(contextId.slice(0, 80))} cannot name a conversation: use 1-64 characters of A-Z a-z 0-9 . _ - (or send none and use the one the server returns)`,
    );
  const running = tasks.unfinished();
  if (running.some((u) => u.owner === owner && u.task.contextId === contextId)) return;
  const another =
    running.some((u) => u.owner !== owner && u.task.contextId === contextId) || (await heldByAnother(conversations, contextId, owner));
  if (another)
    throw new A2aError(
      "InvalidParams",
      `contextId ${contextId} belongs to another principal: you can continue only your own contexts (send none to start a new one)`,
    );
}

/** Whether the store holds `contextId` for a principal other than `owner` only; a store that fails is one clear error. */
async function heldByAnother(conversations: ServedConversations | undefined, contextId: string, owner: string): Promise<boolean> {
  if (!conversations) return false;
  try {
    return !(await conversations.get(contextId, owner)) && (await conversations.heldByAnother(contextId, owner));
  } catch (e) {
    throw new A2aError(
      "Internal",
      `the conversations' store could not be read (${e instanceof Error ? e.message : String(e)}): send again`,
    );
  }
}
