/**
 * Inbound requests: dispatch to handlers, the in-flight table (for cancellation and the concurrency
 * limit), and the mapping of every failure to the JSON-RPC error it deserves.
 *
 * Error mapping: no handler or a method outside the active revision → -32601; params failing the codec →
 * -32602; a handler throwing `McpError` → that error; anything else → -32603 with a generic message (the
 * detail is logged, never sent). A request cancelled by the peer gets no response at all (cancellation
 * spec: receivers SHOULD NOT send one).
 */
import type { MessageExtra } from "../../transport/types.ts";
import { AgentdError, McpError } from "../../wire/errors.ts";
import { errorResponse, ErrorCode, resultResponse, type JsonRpcMessage, type JsonRpcRequest, type RequestId } from "../../wire/jsonrpc.ts";
import { nullLogger, type Logger } from "../../log.ts";
import type { Protocol } from "./protocol.ts";
import { BUILTIN_REQUESTS, type RegisteredRequest, type SharedHandlers } from "./handler-table.ts";
import { inboundContext, InFlight } from "./inbound-context.ts";
import { isThenable } from "../../_internal/thenable.ts";
import type { HandlerOptions, McpRequestHandler } from "./types.ts";

/** JSON-RPC error code (implementation-defined range) for "too many requests in flight". */
export const TOO_MANY_REQUESTS = -32003;

/** Told the reply to an inbound request (undefined: none is due). */
export interface ReplySink {
  replied(reply: JsonRpcMessage | undefined, id: RequestId): void;
}

/** A protocol's own refusal of a method (its `gate` option), before any handler is looked up. */
export type InboundGate = ((method: string) => McpError | undefined) | undefined;

/**
 * One idle table kept for the next peer that needs one. A protocol drops its table whenever it goes idle
 * (thousands of idle sessions keep none); a peer sending one request at a time would then build a table
 * per request, and takes this one back instead.
 */
let spare: InboundRequests | undefined;

/** The inbound side of a {@link Protocol}. */
export class InboundRequests {
  /** This peer's own handlers, created on first registration; `null` hides a shared or built-in one. */
  private handlers: Map<string, RegisteredRequest | null> | undefined;
  /**
   * The requests being handled: the first in its own slot, any more in a map made while they run. A peer
   * sending one request at a time then builds no map per request, and an idle one keeps none.
   */
  private soleId: RequestId | undefined;
  private sole: InFlight | undefined;
  private inFlight: Map<RequestId, InFlight> | undefined;
  // Not readonly: a recycled table is set up again for its next peer (see `open`).
  private protocol: Protocol;
  private logger: Logger;
  private maxInflight: number;
  private gate: InboundGate;
  private shared: SharedHandlers | undefined;

  // Settings as arguments, not an options object: a table is made per burst of requests.
  constructor(protocol: Protocol, logger: Logger, maxInflight: number, gate: InboundGate, shared: SharedHandlers | undefined) {
    this.protocol = protocol;
    this.logger = logger;
    this.maxInflight = maxInflight;
    this.gate = gate;
    this.shared = shared;
  }

  /** The table of `protocol`: the spare one set up for it when there is one, else a new one. */
  static open(
    protocol: Protocol,
    logger: Logger,
    maxInflight: number,
    gate: InboundGate,
    shared: SharedHandlers | undefined,
  ): InboundRequests {
    const table = spare;
    if (table === undefined) return new InboundRequests(protocol, logger, maxInflight, gate, shared);
    spare = undefined;
    table.protocol = protocol;
    table.logger = logger;
    table.maxInflight = maxInflight;
    table.gate = gate;
    table.shared = shared;
    return table;
  }

  /** Hand this table, {@link idle} and dropped by its peer, to the next peer that needs one; returns undefined. */
  recycle(): undefined {
    if (!this.idle) return undefined;
    // Kept for a stranger: hold on to nothing of this peer's (a closed session must not stay reachable).
    this.protocol = undefined as unknown as Protocol;
    this.logger = nullLogger;
    this.gate = undefined;
    this.shared = undefined;
    spare = this;
    return undefined;
  }

  set(method: string, handler: McpRequestHandler, options: HandlerOptions = {}): void {
    (this.handlers ??= new Map()).set(method, { handler, custom: options.custom ?? false });
  }

  delete(method: string): void {
    if (this.shared?.requests.has(method) || BUILTIN_REQUESTS.has(method)) (this.handlers ??= new Map()).set(method, null);
    else this.handlers?.delete(method);
  }

  has(method: string): boolean {
    return this.lookup(method) !== undefined;
  }

  /** Whether this peer registered a handler of its own for `method`. */
  hasOwn(method: string): boolean {
    return (this.handlers?.get(method) ?? null) !== null;
  }

  /** The handler of `method`: this peer's own, else the shared table's, else a built-in one. */
  private lookup(method: string): RegisteredRequest | undefined {
    const own = this.handlers?.get(method);
    if (own !== undefined) return own ?? undefined;
    return this.shared?.requests.get(method) ?? BUILTIN_REQUESTS.get(method);
  }

  /** Whether nothing is in flight and no handler of this peer's own is set (the protocol may then drop this). */
  get idle(): boolean {
    return this.sole === undefined && this.inFlight === undefined && this.handlers === undefined;
  }

  /** Number of inbound requests being handled. */
  get size(): number {
    return (this.sole === undefined ? 0 : 1) + (this.inFlight?.size ?? 0);
  }

  private flight(id: RequestId): InFlight | undefined {
    return this.sole !== undefined && this.soleId === id ? this.sole : this.inFlight?.get(id);
  }

  /**
   * Handle one request: `sink` is told the reply, or undefined when none is due (cancelled); never throws.
   * A refusal is told at once. A handler's outcome that came at once (a result or a throw) is told when this
   * turn's microtasks run, the request still in flight until then: a cancellation delivered right behind its
   * request (the same batch or read) still suppresses the reply, as when every handler was awaited, at the
   * cost of one microtask instead of a promise and a turn per async frame. A promised outcome is told
   * when it settles.
   */
  handle(message: JsonRpcRequest, extra: MessageExtra | undefined, sink: ReplySink): void {
    const { id, method } = message;
    if (this.flight(id) !== undefined)
      return sink.replied(
        refuse(id, new McpError(ErrorCode.InvalidRequest, `Invalid request: request id ${JSON.stringify(id)} is already in use`)),
        id,
      );
    const entry = this.lookup(method);
    const refused = this.refusal(message, entry);
    if (refused || entry === undefined) return sink.replied(refused, id);
    const params: Record<string, unknown> = message.params ?? {};
    const flight = new InFlight();
    if (this.sole === undefined) {
      this.sole = flight;
      this.soleId = id;
    } else (this.inFlight ??= new Map()).set(id, flight);
    let outcome: unknown;
    let threw = false;
    try {
      outcome = entry.handler(params, inboundContext(this.protocol, flight, id, method, params, extra), this.protocol);
    } catch (e) {
      outcome = e;
      threw = true;
    }
    if (!threw && isThenable(outcome)) {
      void this.settleLater(outcome, flight, id, method).then((reply) => sink.replied(reply, id));
      return;
    }
    queueMicrotask(() => sink.replied(threw ? this.failed(flight, id, method, outcome) : this.answered(flight, id, method, outcome), id));
  }

  /** The error reply refusing `message` before any handler runs (gate, unknown method, bad params, too many in flight), or undefined. */
  private refusal(message: JsonRpcRequest, entry: RegisteredRequest | undefined): JsonRpcMessage | undefined {
    const { id, method } = message;
    const gated = this.gate?.(method) ?? this.shared?.gate?.(method, this.protocol, message.params);
    if (gated) return refuse(id, gated);
    const codec = this.protocol.codec;
    if (!entry || (!entry.custom && !codec.knowsRequest(method)))
      return refuse(id, new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`));
    if (!entry.custom) {
      const failed = codec.checkRequestParams(method, message.params);
      if (failed)
        return refuse(
          id,
          failed.unknown
            ? new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`)
            : new McpError(ErrorCode.InvalidParams, failed.message),
        );
    }
    if (this.size >= this.maxInflight) {
      this.logger.warn("mcp.too_many_requests", { method, limit: this.maxInflight });
      return refuse(
        id,
        new McpError(TOO_MANY_REQUESTS, `Too many requests in flight (limit ${this.maxInflight}); retry later`, {
          limit: this.maxInflight,
        }),
      );
    }
    return undefined;
  }

  /** The reply to a handler's promised result, once it settles. */
  private async settleLater(
    promised: PromiseLike<unknown>,
    flight: InFlight,
    id: RequestId,
    method: string,
  ): Promise<JsonRpcMessage | undefined> {
    let result: unknown;
    try {
      result = await promised;
    } catch (e) {
      return this.failed(flight, id, method, e);
    }
    return this.answered(flight, id, method, result);
  }

  /** The reply to a handler's result (the request then stops being in flight). */
  private answered(flight: InFlight, id: RequestId, method: string, result: unknown): JsonRpcMessage | undefined {
    try {
      if (flight.cancelled) return undefined;
      if (typeof result !== "object" || result === null || Array.isArray(result)) {
        this.logger.error("mcp.handler_error", { method, error: "handler returned a non-object result" });
        return errorResponse(id, ErrorCode.InternalError, "Internal error");
      }
      const record = result as Record<string, unknown>;
      return resultResponse(id, this.shared?.finish ? this.shared.finish(method, record, this.protocol) : record);
    } catch (e) {
      // `finish` failing is the handler's failure, as when it ran inside the handler's frame.
      return this.failed(flight, id, method, e);
    } finally {
      this.release(flight, id);
    }
  }

  /** The reply to a handler's failure (the request then stops being in flight). */
  private failed(flight: InFlight, id: RequestId, method: string, e: unknown): JsonRpcMessage | undefined {
    this.release(flight, id);
    if (flight.cancelled) return undefined;
    if (McpError.isInstance(e)) return refuse(id, e);
    this.logger.error("mcp.handler_error", { method, error: e instanceof Error ? e.message : String(e) });
    return errorResponse(id, ErrorCode.InternalError, "Internal error");
  }

  /** Request `id` is no longer in flight. */
  private release(flight: InFlight, id: RequestId): void {
    if (this.sole === flight) {
      this.sole = undefined;
      this.soleId = undefined;
    } else if (this.inFlight?.get(id) === flight) {
      this.inFlight.delete(id);
      // An idle peer keeps no table (thousands of idle HTTP sessions each had one).
      if (this.inFlight.size === 0) this.inFlight = undefined;
    }
  }

  /** The peer cancelled `id`: abort its handler and drop its outcome. Unknown ids are ignored (spec). */
  cancel(id: RequestId, reason: unknown): void {
    const flight = this.flight(id);
    if (!flight) {
      this.logger.debug("mcp.cancel_unknown", { id });
      return;
    }
    this.logger.debug("mcp.cancelled_by_peer", { id, reason: typeof reason === "string" ? reason : undefined });
    flight.cancelled = true;
    const why = typeof reason === "string" && reason ? `: ${reason}` : "";
    flight.abort(new AgentdError("E_ABORTED", `request ${JSON.stringify(id)} cancelled by the peer${why}`));
  }

  /**
   * Shutting down: abort every handler still running and hand back the ids of their requests, for the caller
   * to answer with an error now. The handlers' own outcomes, when they come, are dropped.
   */
  interruptAll(reason: string): RequestId[] {
    const all: Array<[RequestId, InFlight]> = [...(this.inFlight ?? [])];
    if (this.sole !== undefined) all.unshift([this.soleId as RequestId, this.sole]);
    const ids: RequestId[] = [];
    for (const [id, flight] of all) {
      if (flight.cancelled) continue;
      flight.cancelled = true;
      flight.abort(new AgentdError("E_ABORTED", reason));
      ids.push(id);
    }
    return ids;
  }

  /** The connection closed: abort every handler; their outcomes have nowhere to go. */
  abortAll(reason: string): void {
    const all = [...(this.inFlight?.values() ?? [])];
    if (this.sole !== undefined) all.unshift(this.sole);
    for (const flight of all) {
      flight.cancelled = true;
      flight.abort(new AgentdError("E_CONNECTION_CLOSED", reason));
    }
  }
}

/** The error response refusing request `id` with `e`. */
function refuse(id: RequestId, e: McpError): JsonRpcMessage {
  return errorResponse(id, e.code, e.message, e.data);
}
