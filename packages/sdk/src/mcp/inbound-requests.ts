/**
 * Inbound requests: dispatch to handlers, the in-flight table (for cancellation and the concurrency
 * limit), and the mapping of every failure to the JSON-RPC error it deserves.
 *
 * Error mapping: no handler or a method outside the active revision → -32601; params failing the codec →
 * -32602; a handler throwing `McpError` → that error; anything else → -32603 with a generic message (the
 * detail is logged, never sent). A request cancelled by the peer gets no response at all (cancellation
 * spec: receivers SHOULD NOT send one).
 */
import type { MessageExtra } from "../transport/types.ts";
import { AgentdError, McpError } from "../wire/errors.ts";
import {
  errorResponse,
  ErrorCode,
  resultResponse,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RequestId,
} from "../wire/jsonrpc.ts";
import type { Logger } from "../log.ts";
import type { Protocol } from "./protocol.ts";
import type { HandlerOptions, ProgressToken, RequestContext, McpRequestHandler } from "./types.ts";

/** JSON-RPC error code (implementation-defined range) for "too many requests in flight". */
export const TOO_MANY_REQUESTS = -32003;

interface InFlight {
  controller: AbortController;
  /** Set when the peer cancelled: the handler's outcome is then dropped. */
  cancelled: boolean;
}

interface Registered {
  handler: McpRequestHandler;
  custom: boolean;
}

/** The inbound side of a {@link Protocol}. */
export class InboundRequests {
  private readonly handlers = new Map<string, Registered>();
  private readonly inFlight = new Map<RequestId, InFlight>();

  constructor(
    private readonly protocol: Protocol,
    private readonly options: {
      logger: Logger;
      maxInflight: number;
      gate?: ((method: string) => McpError | undefined) | undefined;
    },
  ) {}

  set(method: string, handler: McpRequestHandler, options: HandlerOptions = {}): void {
    this.handlers.set(method, { handler, custom: options.custom ?? false });
  }

  delete(method: string): void {
    this.handlers.delete(method);
  }

  has(method: string): boolean {
    return this.handlers.has(method);
  }

  /** Number of inbound requests being handled. */
  get size(): number {
    return this.inFlight.size;
  }

  /** Handle one request; resolves to the reply, or undefined when none is due (cancelled). Never rejects. */
  async handle(message: JsonRpcRequest, extra?: MessageExtra): Promise<JsonRpcMessage | undefined> {
    const { id, method } = message;
    const refuse = (e: McpError) => errorResponse(id, e.code, e.message, e.data);
    if (this.inFlight.has(id))
      return refuse(new McpError(ErrorCode.InvalidRequest, `Invalid request: request id ${JSON.stringify(id)} is already in use`));
    const gated = this.options.gate?.(method);
    if (gated) return refuse(gated);
    const entry = this.handlers.get(method);
    const codec = this.protocol.codec;
    if (!entry || (!entry.custom && !codec.knowsRequest(method)))
      return refuse(new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`));
    let params: Record<string, unknown> = message.params ?? {};
    if (!entry.custom) {
      const v = codec.requestParams(method, message.params);
      if (!v.ok)
        return refuse(
          v.unknown
            ? new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`)
            : new McpError(ErrorCode.InvalidParams, v.message),
        );
      params = v.value;
    }
    if (this.inFlight.size >= this.options.maxInflight) {
      this.options.logger.warn("mcp.too_many_requests", { method, limit: this.options.maxInflight });
      return refuse(
        new McpError(TOO_MANY_REQUESTS, `Too many requests in flight (limit ${this.options.maxInflight}); retry later`, {
          limit: this.options.maxInflight,
        }),
      );
    }
    const flight: InFlight = { controller: new AbortController(), cancelled: false };
    this.inFlight.set(id, flight);
    try {
      const result = await entry.handler(params, this.context(id, method, params, flight.controller.signal, extra));
      if (flight.cancelled) return undefined;
      if (typeof result !== "object" || result === null || Array.isArray(result)) {
        this.options.logger.error("mcp.handler_error", { method, error: "handler returned a non-object result" });
        return errorResponse(id, ErrorCode.InternalError, "Internal error");
      }
      return resultResponse(id, result);
    } catch (e) {
      if (flight.cancelled) return undefined;
      if (McpError.isInstance(e)) return refuse(e);
      this.options.logger.error("mcp.handler_error", { method, error: e instanceof Error ? e.message : String(e) });
      return errorResponse(id, ErrorCode.InternalError, "Internal error");
    } finally {
      this.inFlight.delete(id);
    }
  }

  /** The peer cancelled `id`: abort its handler and drop its outcome. Unknown ids are ignored (spec). */
  cancel(id: RequestId, reason: unknown): void {
    const flight = this.inFlight.get(id);
    if (!flight) {
      this.options.logger.debug("mcp.cancel_unknown", { id });
      return;
    }
    this.options.logger.debug("mcp.cancelled_by_peer", { id, reason: typeof reason === "string" ? reason : undefined });
    flight.cancelled = true;
    const why = typeof reason === "string" && reason ? `: ${reason}` : "";
    flight.controller.abort(new AgentdError("E_ABORTED", `request ${JSON.stringify(id)} cancelled by the peer${why}`));
  }

  /** The connection closed: abort every handler; their outcomes have nowhere to go. */
  abortAll(reason: string): void {
    for (const flight of this.inFlight.values()) {
      flight.cancelled = true;
      flight.controller.abort(new AgentdError("E_CONNECTION_CLOSED", reason));
    }
  }

  private context(
    requestId: RequestId,
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    extra: MessageExtra | undefined,
  ): RequestContext {
    const protocol = this.protocol;
    const meta = (typeof params._meta === "object" && params._meta !== null ? params._meta : {}) as Record<string, unknown>;
    const token = meta.progressToken;
    const progressToken: ProgressToken | undefined = typeof token === "string" || typeof token === "number" ? token : undefined;
    const ctx: RequestContext = {
      requestId,
      method,
      signal,
      meta,
      progressToken,
      sessionId: extra?.sessionId ?? protocol.transport.sessionId,
      authInfo: extra?.authInfo,
      sendNotification: (m, p) => protocol.notify(m, p, { relatedRequestId: requestId }),
      sendRequest: (m, p, o = {}) =>
        protocol.request(m, p, {
          ...o,
          relatedRequestId: requestId,
          signal: o.signal ? AbortSignal.any([o.signal, signal]) : signal,
        }),
      sendProgress: async (progress, total, message) => {
        if (progressToken === undefined || signal.aborted) return;
        const p: Record<string, unknown> = { progressToken, progress };
        if (total !== undefined) p.total = total;
        if (message !== undefined) p.message = message;
        await protocol.notify("notifications/progress", p, { relatedRequestId: requestId });
      },
    };
    return ctx;
  }
}
