/**
 * What the A2A bindings (JSON-RPC, HTTP+JSON, and v0.3's of each) share, passed to each as data rather than
 * reached through the mount's closure: the service, the body limits, the error mapping and the stream cap —
 * and, per request, who is calling and what they may not do.
 */
import type { A2aError } from "../shared/types.ts";
import type { HttpRequestConn } from "../../transport/http-server/context.ts";
import type { Principal } from "../../serve/principal.ts";
import type { A2aService } from "./service.ts";
import type { CountedSse } from "./sse.ts";

/** The 403 for a method the caller may not call, or undefined. */
export type Refusal = (method: string) => Response | undefined;

/** What every binding needs, built once per mount. */
export interface A2aBindingContext {
  service: A2aService;
  maxBodyBytes: number;
  /** Time a request body may take to arrive (408 and the connection closed past it). */
  bodyTimeoutMs: number;
  /** Any failure as an A2A error (an unexpected one logged and answered as Internal). */
  toA2aError: (e: unknown) => A2aError;
  /** An SSE answer counted against the principal's open streams. */
  sse: CountedSse;
}

/** One authenticated request as the bindings see it. */
export interface A2aCaller {
  who: Principal;
  conn: HttpRequestConn;
  lacks: Refusal;
}

/**
 * The service as a v0.3 request may use it: the v0.3 names map onto v1.0 operations only inside their
 * translation, so the permission is checked there; a refusal is thrown as the 403 response itself.
 */
export function gatedService(service: A2aService, lacks: Refusal): A2aService {
  const check = (method: string): void => {
    const refused = lacks(method);
    if (refused) throw refused;
  };
  return {
    call: (m, p, w) => (check(m), service.call(m, p, w)),
    stream: (m, p, w) => (check(m), service.stream(m, p, w)),
    streams: (m) => service.streams(m),
  };
}
