/**
 * Every page of a paginated MCP list, following `nextCursor` — bounded, because a server whose cursors
 * repeat or never end would otherwise keep a client listing forever.
 */
import { AgentdError } from "../../wire/errors.ts";

/** Pages a list may span before we call the server's pagination broken. */
const MAX_PAGES = 1_000;

/** Request `method` page by page and gather each page's `key` items. */
export async function collectPages<T>(
  method: string,
  key: string,
  requestPage: (params: { cursor: string } | undefined) => Promise<Record<string, unknown>>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await requestPage(cursor === undefined ? undefined : { cursor });
    items.push(...((result[key] as T[] | undefined) ?? []));
    const next = result.nextCursor;
    if (typeof next !== "string" || next === "") return items;
    if (seen.has(next)) throw new AgentdError("E_UPSTREAM", `${method}: the server repeated a pagination cursor`);
    seen.add(next);
    cursor = next;
  }
  throw new AgentdError("E_UPSTREAM", `${method}: more than ${MAX_PAGES} pages`);
}
