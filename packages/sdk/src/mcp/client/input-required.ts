/**
 * Multi round-trip requests, client side (2026-07-28, "MRTR" pattern): a `tools/call`, `resources/read` or
 * `prompts/get` may be answered with `resultType: "input_required"` and embedded `inputRequests`
 * (sampling, elicitation, roots). Each is answered by the same policy that answers the server→client
 * request of the handshake revisions (the capability map's `CLIENT_INBOUND`), and the original request is
 * retried — a new JSON-RPC id — with `inputResponses` and the exact `requestState` echoed (MRTR spec,
 * "Client Requirements"). A server that keeps asking is cut off after {@link MAX_INPUT_ROUNDS} rounds.
 */
import { AgentdError } from "../../wire/errors.ts";
import type { Root } from "../../wire/index.ts";
import { CLIENT_INBOUND, type CapabilityConfig } from "../capabilities.ts";
import type { Protocol } from "../protocol/protocol.ts";
import type { RequestContext, RequestOptions } from "../protocol/types.ts";
import type { ResultCache } from "./result-cache.ts";

/**
 * Input kinds 2026-07-28 marks deprecated (SEP-2577): still answered — they "remain fully functional during
 * the deprecation window" — with the migration the spec suggests, for a one-time notice.
 */
export const DEPRECATED_INPUTS: Readonly<Record<string, { feature: string; migration: string }>> = {
  "sampling/createMessage": { feature: "sampling", migration: "integrate directly with LLM provider APIs" },
  "roots/list": { feature: "roots", migration: "pass directories or files via tool parameters, resource URIs, or server configuration" },
};

/** Rounds of input one request may ask for before we call the server broken. */
export const MAX_INPUT_ROUNDS = 8;

/** Whether a result is an interim `InputRequiredResult`. */
export const isInputRequired = (r: Record<string, unknown>): boolean => r.resultType === "input_required";

/** Answer one embedded input request with the client's policy for `method`. */
async function answer(
  key: string,
  request: { method?: unknown; params?: unknown },
  config: CapabilityConfig,
  roots: readonly Root[],
  signal: AbortSignal | undefined,
  ondeprecated: ((method: string) => void) | undefined,
): Promise<Record<string, unknown>> {
  const method = String(request.method);
  if (Object.hasOwn(DEPRECATED_INPUTS, method)) ondeprecated?.(method);
  const decide = Object.hasOwn(CLIENT_INBOUND, method) ? CLIENT_INBOUND[method] : undefined;
  const decision = decide?.(config);
  if (decision === undefined || decision.kind === "refuse")
    // MRTR spec: servers MUST NOT ask for input the client did not declare.
    throw new AgentdError(
      "E_CAPABILITY",
      `the server asked for ${method} input, which this client does not offer (input request "${key}")`,
    );
  if (decision.kind === "answer") return decision.result([...roots]);
  const params = (request.params ?? {}) as Record<string, unknown>;
  const ctx: RequestContext = {
    requestId: key,
    method,
    signal: signal ?? new AbortController().signal,
    meta: {},
    sendNotification: async () => {},
    sendRequest: () => Promise.reject(new AgentdError("E_CAPABILITY", "an input request cannot send requests of its own")),
    sendProgress: async () => {},
  };
  return decision.handler(params, ctx);
}

/** Answer a map of embedded input requests (an `InputRequiredResult`'s, or an input-required task's), key by key. */
export async function answerInputRequests(
  requests: Record<string, { method?: unknown; params?: unknown }>,
  config: CapabilityConfig,
  roots: readonly Root[],
  signal?: AbortSignal,
  ondeprecated?: (method: string) => void,
): Promise<Record<string, Record<string, unknown>>> {
  const responses: Record<string, Record<string, unknown>> = {};
  for (const [key, request] of Object.entries(requests)) responses[key] = await answer(key, request, config, roots, signal, ondeprecated);
  return responses;
}

/**
 * Send a request and carry it through its input rounds: `send(retry)` sends the original params plus
 * `retry` (`inputResponses`, `requestState`) and returns the result.
 */
export async function withInputRounds(
  method: string,
  send: (retry: Record<string, unknown>) => Promise<Record<string, unknown>>,
  config: CapabilityConfig,
  roots: readonly Root[],
  signal?: AbortSignal,
  ondeprecated?: (method: string) => void,
): Promise<Record<string, unknown>> {
  let retry: Record<string, unknown> = {};
  for (let round = 0; round <= MAX_INPUT_ROUNDS; round++) {
    const result = await send(retry);
    if (!isInputRequired(result)) return result;
    const requests = (result.inputRequests ?? {}) as Record<string, { method?: unknown; params?: unknown }>;
    const responses = await answerInputRequests(requests, config, roots, signal, ondeprecated);
    retry = {};
    if (Object.keys(responses).length > 0) retry.inputResponses = responses;
    if (typeof result.requestState === "string") retry.requestState = result.requestState;
  }
  throw new AgentdError("E_UPSTREAM", `${method}: the server still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
}

/** What {@link statelessRequest} reads of its client. */
export interface StatelessRequestContext {
  cache: ResultCache;
  config: CapabilityConfig;
  roots: readonly Root[];
  /** Told each method the server answered with a deprecated input request. */
  ondeprecated: (method: string) => void;
}

/**
 * A request to a stateless server: a fresh cached result answers a cacheable request, and input-required
 * results are carried through their rounds.
 */
export async function statelessRequest<T>(
  protocol: Protocol,
  method: string,
  params: Record<string, unknown> | undefined,
  options: RequestOptions,
  ctx: StatelessRequestContext,
): Promise<T> {
  const cached = ctx.cache.get(method, params);
  if (cached !== undefined) return cached as T;
  const result = protocol.codec.mayRequireInput(method)
    ? await withInputRounds(
        method,
        (retry) => protocol.request<Record<string, unknown>>(method, { ...params, ...retry }, options),
        ctx.config,
        ctx.roots,
        options.signal,
        ctx.ondeprecated,
      )
    : await protocol.request<Record<string, unknown>>(method, params, options);
  ctx.cache.put(method, params, result);
  return result as T;
}
