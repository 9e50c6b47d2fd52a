/**
 * What the Streamable HTTP transport asks of an authorization provider (MCP authorization spec): a bearer
 * token for each request to the MCP endpoint, and what to do when the server refuses one (401, or 403
 * `insufficient_scope`). The OAuth implementation lives in `oauth/` and is loaded only when a server is
 * configured for it (see `lazyOAuthProvider`), so the default path pays nothing for it. Also here: how a
 * request carries the token and is re-sent after a challenge, bounded.
 */

/** What the server said when it refused a request. */
export interface AuthChallenge {
  status: number;
  /** The `WWW-Authenticate` header, if any. */
  wwwAuthenticate: string | null;
  /** The token the refused request carried, if any (a renewal since then makes a retry enough). */
  token?: string;
}

/** Supplies and renews the credentials of one MCP server. */
export interface HttpAuthProvider {
  /**
   * The access token to send now (renewed first if it is about to expire), or undefined when none is held
   * yet. Only ever sent to the MCP endpoint it was issued for.
   */
  token(signal?: AbortSignal): Promise<string | undefined>;
  /**
   * The server refused the request. Obtain a (new, or broader) token and resolve true to retry; resolve
   * false when retrying cannot help. Rejects with a user-facing error when a person must act first (for
   * example run `agentd auth login SERVER`).
   */
  challenge(challenge: AuthChallenge, signal?: AbortSignal): Promise<boolean>;
}

/** How many times one request is re-sent after a 401/403 before the refusal is final (step-up loop guard). */
export const MAX_AUTH_ROUNDS = 3;

/** Put the provider's bearer token (if any) on a request to the MCP endpoint; the token sent, if any. */
export async function authorize(auth: HttpAuthProvider | undefined, headers: Headers, signal: AbortSignal): Promise<string | undefined> {
  const token = await auth?.token(signal);
  if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
  return token;
}

/**
 * Send with the provider's token; on 401/403 let the provider obtain a (broader) token and re-send, at
 * most {@link MAX_AUTH_ROUNDS} times, so a server that keeps asking for more cannot loop us forever.
 */
export async function fetchAuthorized(
  auth: HttpAuthProvider | undefined,
  send: (init: RequestInit & { headers: Headers }) => Promise<Response>,
  init: RequestInit & { headers: Headers },
  signal: AbortSignal,
): Promise<Response> {
  for (let round = 0; ; round++) {
    const token = await authorize(auth, init.headers, signal);
    const response = await send(init);
    if (!auth || (response.status !== 401 && response.status !== 403) || round >= MAX_AUTH_ROUNDS) return response;
    const challenge = { status: response.status, wwwAuthenticate: response.headers.get("www-authenticate"), token: token || undefined };
    if (!(await auth.challenge(challenge, signal))) return response;
    await response.body?.cancel().catch(() => {});
  }
}
