import { AgentdError } from "../../wire/errors.ts";

/**
 * Who completes a remote MCP server's authorization for a run that cannot: a run served as an A2A task
 * asks the task's client (`auth-required`) to have someone run `agentd auth login SERVER`, then retries.
 */

/** What a run needs authorized: the server, the one-line error naming the command, and where to authorize. */
export interface AuthorizationNeed {
  server: string;
  /** The user-facing error (e.g. "… no token is stored; run: agentd auth login api"); never a token. */
  message: string;
  /** The authorization server's issuer, when discovery got that far. */
  authorizationServer?: string;
  /** The protected resource (the server's canonical URL), when known. */
  resource?: string;
}

/** Resolves true once someone says the authorization is done (retry), false when the wait ends without it. */
export type AuthorizationAsk = (need: AuthorizationNeed, signal: AbortSignal) => Promise<boolean>;

/** Times one operation waits for an authorization and retries before it fails with the error. */
export const AUTHORIZATION_ATTEMPTS = 3;

/** What `e` says is missing, when it is a server refusing for want of authorization (the OAuth client's `E_UNAUTHORIZED`). */
export function authorizationNeed(e: unknown, server?: string): AuthorizationNeed | undefined {
  // A (re)connection wraps it as the server being unavailable (`E_UPSTREAM`), keeping it as the cause.
  for (let depth = 0; AgentdError.isInstance(e) && e.code !== "E_UNAUTHORIZED" && depth < 3; depth++) e = e.options.cause;
  if (!AgentdError.isInstance(e) || e.code !== "E_UNAUTHORIZED") return undefined;
  const data = (e.options.data ?? {}) as { server?: unknown; authorizationServer?: unknown; resource?: unknown };
  const name = server ?? (typeof data.server === "string" ? data.server : undefined);
  if (name === undefined) return undefined;
  return {
    server: name,
    message: e.message,
    authorizationServer: typeof data.authorizationServer === "string" ? data.authorizationServer : undefined,
    resource: typeof data.resource === "string" ? data.resource : undefined,
  };
}

/**
 * Run `op`; while it fails for want of a server's authorization and `ask` gets it done, run it again
 * (at most {@link AUTHORIZATION_ATTEMPTS} waits). Without `ask`, `op` fails as it always did.
 */
export async function withAuthorization<T>(
  op: () => Promise<T>,
  ask: AuthorizationAsk | undefined,
  signal: AbortSignal,
  server?: string,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      const need = ask && attempt <= AUTHORIZATION_ATTEMPTS && !signal.aborted ? authorizationNeed(e, server) : undefined;
      if (!need) throw e;
      // A wait ended by the deadline (or a cancel) fails as that, not as the refusal.
      if (!(await ask!(need, signal))) throw signal.aborted && AgentdError.isInstance(signal.reason) ? signal.reason : e;
    }
  }
}
