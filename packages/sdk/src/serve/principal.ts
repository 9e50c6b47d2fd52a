/**
 * Who is asking: every inbound request of the served agent resolves to a principal — an id and a role. Runs,
 * their records, status and run-id idempotency are keyed by the id; an operator sees the whole agent.
 *
 * Ids: `local` for the machine's own user (stdio, loopback without auth, and the configured triggers),
 * `bearer:NAME` for a bearer token (NAME as configured, else `bearer#N`), `mtls:SUBJECT` for a client
 * certificate (SUBJECT in RFC 4514 form, last RDN first, e.g. `mtls:CN=alice,O=agents`; see
 * `distinguished-name.ts`), `jwt:ISSUER#SUB` for an OAuth access token.
 * The operator role comes from configuration, never from the request: a principal id listed as an
 * operator, or a credential configured with the role (an operator token).
 */
import { sha256 } from "../_internal/hash.ts";
import { canonicalDistinguishedName } from "../transport/http-server/distinguished-name.ts";
import type { MessageExtra, Permission } from "../transport/types.ts";
import { AgentdError } from "../wire/errors.ts";

export type { Permission };

/** The principal of unauthenticated use: stdio, loopback without auth, the agent's own triggers. */
export const LOCAL_PRINCIPAL = "local";

/** A caller: an id string, a role, and what it may do (see `permissions.ts`). */
export interface Principal {
  id: string;
  role: "operator" | "user";
  /** What it may do; absent means its role's default (a user: run and status; an operator: all three). */
  permissions?: readonly Permission[];
}

/** What a user may do unless its credential says otherwise: run and read its own status. */
export const USER_PERMISSIONS: readonly Permission[] = Object.freeze(["run", "status"] as const);
/** What an operator may do unless its credential says otherwise: everything. */
export const OPERATOR_PERMISSIONS: readonly Permission[] = Object.freeze(["run", "status", "operator"] as const);

/**
 * Resolve the principal of a request from what the transport authenticated. A credential that names its
 * permissions keeps exactly those (the `operator` permission is the operator role); a principal listed in
 * `operators` is an operator with every permission.
 */
export function resolvePrincipal(authInfo: MessageExtra["authInfo"], operators: ReadonlySet<string>): Principal {
  const id = authInfo ? `${authInfo.scheme}:${authInfo.principal}` : LOCAL_PRINCIPAL;
  const listed = operators.has(id);
  const operator = authInfo?.role === "operator" || listed || authInfo?.permissions?.includes("operator") === true;
  const permissions = authInfo?.permissions && !listed ? authInfo.permissions : operator ? OPERATOR_PERMISSIONS : USER_PERMISSIONS;
  return { id, role: operator ? "operator" : "user", permissions };
}

/** Whether `principal` may do `permission`. */
export function can(principal: Principal, permission: Permission): boolean {
  return (principal.permissions ?? (principal.role === "operator" ? OPERATOR_PERMISSIONS : USER_PERMISSIONS)).includes(permission);
}

/**
 * The run id handed to the agent for a principal's run: the caller's own id for `local`, else made
 * distinct per principal, so that two principals using the same id never share idempotency downstream
 * (the run id travels to MCP servers in `_meta`).
 */
export function scopedRunId(principal: Principal, runId: string): string {
  if (principal.id === LOCAL_PRINCIPAL) return runId;
  const digest = sha256(principal.id, "hex").slice(0, 12);
  return `${runId}@${digest}`;
}

/**
 * The bearer tokens of a server as the HTTP transport takes them: operator tokens first (principal
 * `bearer:operator#N`, role operator), then the others (`bearer:bearer#N`, N their position in their own
 * list). A token listed in both is an operator's.
 */
export function bearerTokenEntries(
  tokens: string[],
  operatorTokens: string[] = [],
  /** The permissions of the (non-operator) tokens, when configured; default run and status. */
  tokenPermissions?: readonly Permission[],
): { token: string; name: string; role?: "operator"; permissions?: readonly Permission[] }[] {
  const ops = new Set(operatorTokens);
  return [
    ...operatorTokens.map((token, i) => ({ token, name: `operator#${i}`, role: "operator" as const })),
    ...tokens.flatMap((token, i) => (ops.has(token) ? [] : [{ token, name: `bearer#${i}`, permissions: tokenPermissions }])),
  ];
}

const BEARER_NAME = /^[A-Za-z0-9\-._#@]{1,64}$/;

/**
 * The canonical form of a configured principal id (an operator), or an Error saying why it is not one.
 * An mTLS subject is parsed as RFC 4514 and written canonically, so any spelling of the same subject
 * (`cn=bob`, openssl's `\C3\A9` escapes, a multi-valued RDN in another order) matches the certificate.
 */
export function canonicalPrincipalId(id: string): string {
  if (id === LOCAL_PRINCIPAL) return id;
  const colon = id.indexOf(":");
  const scheme = colon < 0 ? "" : id.slice(0, colon);
  const rest = id.slice(colon + 1);
  switch (scheme) {
    case "mtls":
      try {
        return `mtls:${canonicalDistinguishedName(rest)}`;
      } catch (e) {
        throw new Error(`the certificate subject is not an RFC 4514 name: ${(e as Error).message}`);
      }
    case "bearer":
      if (!BEARER_NAME.test(rest)) throw new Error("a bearer token's name is 1-64 letters, digits or -._#@");
      return id;
    case "jwt": {
      const hash = rest.indexOf("#");
      const issuer = hash < 0 ? "" : rest.slice(0, hash);
      if (!URL.canParse(issuer) || hash === rest.length - 1)
        throw new Error("a token's principal is jwt:ISSUER#SUBJECT, ISSUER its issuer URL");
      return id;
    }
    default:
      throw new Error("a principal id is local, bearer:NAME, mtls:SUBJECT or jwt:ISSUER#SUBJECT (one id each)");
  }
}

/** Every operator id in canonical form; a bad one is a configuration error naming `where` (e.g. `serve.operators`). */
export function canonicalOperators(ids: readonly string[], where: string): string[] {
  return ids.map((id, i) => {
    try {
      return canonicalPrincipalId(id);
    } catch (e) {
      throw new AgentdError("E_CONFIG_INVALID", `${where}[${i}] '${id}' is not a principal id: ${(e as Error).message}`);
    }
  });
}
