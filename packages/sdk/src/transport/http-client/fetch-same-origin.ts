/**
 * fetch that follows redirects only within the endpoint's origin.
 *
 * Servers commonly redirect `/mcp` to `/mcp/`; following that is harmless. A redirect to another origin
 * would carry our `Authorization`, custom headers and `Mcp-Session-Id` to a host the user never
 * configured (fetch drops only `Authorization` across origins), so it is refused with a clear error.
 */
import { AgentdError } from "../../wire/errors.ts";

const MAX_HOPS = 5;
const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** Fetch `url`, following same-origin redirects that keep the method (all of them for GET/DELETE). */
export async function fetchSameOrigin(fetchFn: typeof fetch, url: URL, init: RequestInit, serverName: string): Promise<Response> {
  let target = url;
  for (let hop = 0; ; hop++) {
    const response = await fetchFn(target, { ...init, redirect: "manual" });
    const location = REDIRECT.has(response.status) ? response.headers.get("location") : null;
    if (location === null) return response;
    await response.body?.cancel().catch(() => {});
    const next = new URL(location, target);
    const fail = (why: string) =>
      new AgentdError(
        "E_TRANSPORT",
        `MCP server '${serverName}' redirected ${init.method ?? "GET"} ${why}; configure the final URL instead`,
        {
          data: { server: serverName, status: response.status },
        },
      );
    if (next.origin !== url.origin) throw fail(`to another origin (${next.origin}), which agentd does not follow`);
    if (hop >= MAX_HOPS) throw fail(`more than ${MAX_HOPS} times`);
    if (init.method === "POST" && response.status !== 307 && response.status !== 308)
      throw fail(`with HTTP ${response.status}, which would turn the POST into a GET`);
    target = next;
  }
}
