/**
 * fetch that follows redirects only within the endpoint's origin.
 *
 * Servers commonly redirect `/mcp` to `/mcp/`; following that is harmless. A redirect to another origin
 * would carry our `Authorization`, custom headers and `Mcp-Session-Id` to a host the user never
 * configured (fetch drops only `Authorization` across origins), so it is refused with a clear error — for
 * an MCP server even a bare GET, since its session is the server's own. The policy is shared by every
 * outbound client (`_internal/redirects.ts`).
 */
import { fetchFollowingRedirects } from "../../_internal/redirects.ts";

/** Fetch `url`, following same-origin redirects that keep the method (all of them for GET/DELETE). */
export function fetchSameOrigin(fetchFn: typeof fetch, url: URL, init: RequestInit, serverName: string): Promise<Response> {
  return fetchFollowingRedirects(fetchFn, url, init, { peer: `MCP server '${serverName}'`, code: "E_TRANSPORT", sameOriginOnly: true });
}
