/**
 * What a Responses gateway keeps between requests, as the API keeps it: the conversations of stored
 * responses (for `previous_response_id`), the ids of their reasoning items (referable by id alone), the
 * reasoning item each issued call was made after (the API wants it back with the call), and the key that
 * signs the reasoning it hands out as `encrypted_content`.
 */
import { randomId, type Answer } from "./answer.ts";
import { isObject } from "./dialect.ts";
import type { ResponsesRequestData } from "./responses-request.ts";
import { createSigner, type Signer } from "./signer.ts";

/** An output or input item, as the API's JSON has it. */
export type Item = Record<string, unknown>;

/** One gateway's memory of what it answered. */
export interface ResponsesState {
  signer: Signer;
  /** Conversations of stored responses (input and output items), by response id. */
  stored: Map<string, Item[]>;
  /** Reasoning item ids of stored responses (referable by id alone). */
  storedReasoning: Set<string>;
  /** The reasoning item each issued call was made after: the API wants it back with the call. */
  reasoningOfCall: Map<string, string>;
}

/** A gateway's empty memory with a fresh signing key. */
export function createResponsesState(): ResponsesState {
  return { signer: createSigner(), stored: new Map(), storedReasoning: new Set(), reasoningOfCall: new Map() };
}

/** The output items of an answer, registered with the gateway's state (and stored when the request says `store`). */
export function outputItems(state: ResponsesState, answer: Answer, data: ResponsesRequestData | undefined, responseId: string): Item[] {
  const items: Item[] = [];
  let reasoningId: string | undefined;
  if (answer.reasoning !== undefined) {
    reasoningId = randomId("rs_", 40);
    items.push({
      id: reasoningId,
      type: "reasoning",
      summary: [{ type: "summary_text", text: answer.reasoning }],
      encrypted_content: data?.encryptedReasoning ? encrypt(state.signer, reasoningId, answer.reasoning) : undefined,
    });
  }
  if (answer.text !== "")
    items.push({
      id: randomId("msg_", 40),
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", annotations: [], logprobs: [], text: answer.text }],
    });
  for (const call of answer.toolCalls) {
    const callId = call.id ?? randomId("call_", 24);
    if (reasoningId) state.reasoningOfCall.set(callId, reasoningId);
    items.push({
      id: randomId("fc_", 40),
      type: "function_call",
      status: "completed",
      arguments: JSON.stringify(call.arguments),
      call_id: callId,
      name: call.name,
    });
  }
  if (data?.store) {
    state.stored.set(responseId, [...data.conversation, ...items]);
    if (reasoningId) state.storedReasoning.add(reasoningId);
  }
  return items;
}

/**
 * Reasoning items sent back: verifiable encrypted content, or an id this gateway stored; with
 * `requirePassBack`, each call's reasoning item must come before the call. The API's error text, or undefined.
 */
export function checkReasoningItems(state: ResponsesState, body: Record<string, unknown>, requirePassBack: boolean): string | undefined {
  if (!Array.isArray(body.input)) return undefined;
  const seen = new Set<string>();
  for (const [index, item] of body.input.entries()) {
    if (!isObject(item)) continue;
    if (item.type === "reasoning" && typeof item.id === "string") {
      if (typeof item.encrypted_content === "string") {
        if (!decryptsTo(state.signer, item.encrypted_content, item.id))
          return `The encrypted content for item ${item.id} could not be verified. (input[${index}].encrypted_content)`;
      } else if (!state.storedReasoning.has(item.id))
        return `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;
      seen.add(item.id);
    }
    if (item.type === "function_call" && requirePassBack) {
      const required = state.reasoningOfCall.get(item.call_id as string);
      if (required !== undefined && !seen.has(required))
        return `Item 'input[${index}]' of type 'function_call' (call_id ${String(item.call_id)}) was provided without its required 'reasoning' item: '${required}'.`;
    }
  }
  return undefined;
}

/** A reasoning item's `encrypted_content`: its id and text, signed so only this gateway's verifies. */
function encrypt(signer: Signer, id: string, text: string): string {
  const payload = Buffer.from(JSON.stringify({ id, text })).toString("base64url");
  return `${payload}.${signer.sign(payload)}`;
}

/** Whether `token` is this gateway's encrypted content for the item `id`. */
function decryptsTo(signer: Signer, token: string, id: string): boolean {
  const [payload, signature] = token.split(".");
  if (!payload || !signer.verify(payload, signature)) return false;
  try {
    return (JSON.parse(Buffer.from(payload, "base64url").toString()) as { id?: unknown }).id === id;
  } catch {
    return false;
  }
}
