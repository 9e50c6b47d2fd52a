/**
 * Who is asking: every inbound request of the self-MCP resolves to a principal — an id and a role. Runs,
 * their records, status and run-id idempotency are keyed by the id; an operator sees the whole agent.
 *
 * Ids: `local` for the machine's own user (stdio, loopback without auth, and the configured triggers),
 * `bearer:NAME` for a bearer token (NAME as configured, else `bearer#N`), `mtls:SUBJECT` for a client
 * certificate (e.g. `mtls:CN=alice,O=agents`). Later schemes (JWT subjects) add prefixes of their own.
 * The operator role comes from configuration, never from the request: a principal id listed as an
 * operator, or a credential configured with the role (an operator token).
 */
import { createHash } from "node:crypto";
import type { MessageExtra } from "../transport/types.ts";

/** The principal of unauthenticated use: stdio, loopback without auth, the agent's own triggers. */
export const LOCAL_PRINCIPAL = "local";

/** A caller: an id string and a role. */
export interface Principal {
  id: string;
  role: "operator" | "user";
}

/** Resolve the principal of a request from what the transport authenticated. */
export function resolvePrincipal(authInfo: MessageExtra["authInfo"], operators: ReadonlySet<string>): Principal {
  const id = authInfo ? `${authInfo.scheme}:${authInfo.principal}` : LOCAL_PRINCIPAL;
  return { id, role: authInfo?.role === "operator" || operators.has(id) ? "operator" : "user" };
}

/**
 * The run id handed to the agent for a principal's run: the caller's own id for `local`, else made
 * distinct per principal, so that two principals using the same id never share idempotency downstream
 * (the run id travels to MCP servers in `_meta`).
 */
export function scopedRunId(principal: Principal, runId: string): string {
  if (principal.id === LOCAL_PRINCIPAL) return runId;
  const digest = createHash("sha256").update(principal.id).digest("hex").slice(0, 12);
  return `${runId}@${digest}`;
}

/**
 * The bearer tokens of a server as the HTTP transport takes them: operator tokens first (principal
 * `bearer:operator#N`, role operator), then the others (`bearer:bearer#N`, N their position in their own
 * list). A token listed in both is an operator's.
 */
export function bearerTokenEntries(tokens: string[], operatorTokens: string[] = []): { token: string; name: string; role?: "operator" }[] {
  const ops = new Set(operatorTokens);
  return [
    ...operatorTokens.map((token, i) => ({ token, name: `operator#${i}`, role: "operator" as const })),
    ...tokens.flatMap((token, i) => (ops.has(token) ? [] : [{ token, name: `bearer#${i}` }])),
  ];
}
