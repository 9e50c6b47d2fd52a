/**
 * The redirect policy of every outbound request agentd makes (model endpoints, A2A agents, MCP servers,
 * OAuth / OpenID issuers): redirects are followed by hand (`redirect: "manual"`), never by fetch, because
 * fetch carries a redirected request's headers and body on to wherever `Location` points and drops only
 * `Authorization` across origins — an `x-api-key`, an `x-goog-api-key`, a gateway token or an agent's custom
 * header, and the whole conversation, would reach a host the user never configured.
 *
 * So: a redirect within the origin is followed (up to {@link MAX_REDIRECTS}; a request with a body only on
 * 307/308 — fetch's 301/302/303 would turn it into a GET without its body). A redirect to another origin is refused with one line naming
 * both origins when the request carries a body or any header that may be a credential; a bare GET (only
 * headers such as `accept`) may follow it unless the caller asks for the same origin only.
 */
import { AgentdError, type LocalErrorCode } from "../wire/errors.ts";

/** Most redirects followed for one request. */
export const MAX_REDIRECTS = 5;

const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** Headers that carry no credential: a request with only these may follow a redirect to another origin. */
const PLAIN_HEADERS = new Set(["accept", "accept-language", "cache-control", "user-agent", "a2a-version", "mcp-protocol-version"]);

/** How a refused redirect is reported. */
export interface RedirectPolicy {
  /** Who answered, as an error line starts (`model endpoint`, `A2A agent 'research'`, `MCP server 'files'`). */
  peer: string;
  /** The error's code (default `E_UPSTREAM`). */
  code?: LocalErrorCode;
  /** Refuse every redirect to another origin, even of a bare GET. */
  sameOriginOnly?: boolean;
}

/** Whether `init` carries a body or a header that is not known to be harmless. */
function carriesCredentials(init: RequestInit): boolean {
  if (init.body !== undefined && init.body !== null) return true;
  for (const name of new Headers(init.headers).keys()) if (!PLAIN_HEADERS.has(name)) return true;
  return false;
}

/**
 * Fetch `url` under the redirect policy above. Resolves with the final answer (a 3xx without `Location`
 * included); rejects with one line when a redirect is refused.
 */
export async function fetchFollowingRedirects(
  fetchFn: (input: string | URL, init?: RequestInit) => Promise<Response>,
  url: string | URL,
  init: RequestInit,
  policy: RedirectPolicy,
): Promise<Response> {
  let target = new URL(String(url));
  const method = (init.method ?? "GET").toUpperCase();
  for (let hop = 0; ; hop++) {
    const response = await fetchFn(target.href, { ...init, redirect: "manual" });
    const location = REDIRECT.has(response.status) ? response.headers.get("location") : null;
    if (location === null) return response;
    await response.body?.cancel().catch(() => {});
    const next = new URL(location, target);
    const fail = (why: string) =>
      new AgentdError(policy.code ?? "E_UPSTREAM", `${policy.peer} redirected ${method} ${why}; configure the final URL instead`, {
        data: { status: response.status, from: target.origin, to: next.origin },
      });
    if (next.origin !== target.origin && (policy.sameOriginOnly || carriesCredentials(init)))
      throw fail(
        `to another origin (${next.origin}, from ${target.origin}), which agentd does not follow with credentials or a request body`,
      );
    if (hop >= MAX_REDIRECTS) throw fail(`more than ${MAX_REDIRECTS} times`);
    // Fetch's rules: 303 makes anything but GET/HEAD a GET, 301/302 make a POST one; the body would be lost.
    const becomesGet = response.status === 303 ? method !== "GET" && method !== "HEAD" : response.status < 303 && method === "POST";
    if (becomesGet) throw fail(`with HTTP ${response.status}, which would turn the ${method} into a GET`);
    target = next;
  }
}
