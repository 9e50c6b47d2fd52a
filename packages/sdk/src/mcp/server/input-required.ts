/**
 * Input-required results, server side (2026-07-28 MRTR pattern): a stateless client takes no requests, so a
 * handler's `ctx.sendRequest("elicitation/create" | "sampling/createMessage" | "roots/list", …)` becomes an
 * embedded input request. The first time, it throws {@link InputRequiredSignal}, which the handler wrappers
 * turn into `{ resultType: "input_required", inputRequests }`; the client answers and retries, the handler
 * runs again from the top, and this time the same call returns the client's answer from `inputResponses`.
 *
 * Keys are `<method>#<n>` (the n-th such call of this request), so a handler that asks the same questions in
 * the same order on each run finds its answers. No `requestState` is minted: nothing is carried between
 * rounds but the answers themselves (a handler needing more puts it in its own arguments or resources).
 * A capability the request's `_meta` does not declare is -32021 (MRTR spec: servers MUST NOT ask for it).
 */
import { McpError } from "../../wire/errors.ts";
import { ErrorCode } from "../../wire/jsonrpc.ts";
import { STATELESS_META } from "../../wire/schemas/stateless-meta.ts";
import type { RequestContext } from "../protocol/types.ts";

/** The client capability each input request needs. */
const CAPABILITY_OF: Readonly<Record<string, "elicitation" | "sampling" | "roots">> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

const SIGNAL = Symbol.for("agentd.mcp.input-required");

/** Thrown by a stateless request's `sendRequest` when the client has not answered yet. Not an error. */
export class InputRequiredSignal extends Error {
  readonly [SIGNAL] = true;
  override name = "InputRequiredSignal";
  constructor(readonly inputRequests: Record<string, { method: string; params?: Record<string, unknown> }>) {
    super("input required from the client");
  }
  /** True for a signal from any copy of this package. */
  static isInstance(e: unknown): e is InputRequiredSignal {
    return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[SIGNAL] === true;
  }
}

/** The `sendRequest` of a stateless request whose params are `params` (it may carry `inputResponses`). */
export function inputRequestBridge(ctx: RequestContext, params: Record<string, unknown> | undefined): RequestContext["sendRequest"] {
  const responses = (params?.inputResponses ?? {}) as Record<string, unknown>;
  const declared = (ctx.meta[STATELESS_META.clientCapabilities] ?? {}) as Record<string, unknown>;
  const counts = new Map<string, number>();
  return async <T>(method: string, p?: Record<string, unknown>) => {
    const capability = Object.hasOwn(CAPABILITY_OF, method) ? CAPABILITY_OF[method] : undefined;
    if (capability === undefined) throw new McpError(ErrorCode.MethodNotFound, `${method} cannot be sent to a client in MCP 2026-07-28`);
    if (declared[capability] === undefined)
      throw new McpError(
        ErrorCode.MissingRequiredClientCapability,
        `this request needs the client capability "${capability}", which its _meta does not declare`,
        {
          requiredCapabilities: { [capability]: {} },
        },
      );
    const n = counts.get(method) ?? 0;
    counts.set(method, n + 1);
    const key = `${method}#${n}`;
    if (Object.hasOwn(responses, key)) return responses[key] as T;
    throw new InputRequiredSignal({ [key]: p === undefined ? { method } : { method, params: p } });
  };
}

/** The interim result a signal stands for. */
export const inputRequiredResult = (signal: InputRequiredSignal): Record<string, unknown> => ({
  resultType: "input_required",
  inputRequests: signal.inputRequests,
});
