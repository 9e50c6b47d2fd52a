/**
 * `agent://runs`: the run history as a resource. Reading it gives a page of runs, newest first (the query
 * in the URI: `agent://runs?status=failed&limit=20&cursor=…`, see `run-list.ts`); subscribing to
 * `agent://runs` tells of every run that starts or ends (`notifications/resources/updated`). An operator
 * lists every principal's runs (and may filter by `principal`); anyone else lists only their own. With a
 * shared history (`durability.store`), the list holds the finished runs of every replica sharing the store.
 */
import { McpError } from "../wire/errors.ts";
import { ErrorCode } from "../wire/jsonrpc.ts";
import type { McpServer } from "../mcp/server/server.ts";
import type { ServerSession } from "../mcp/server/session.ts";
import type { Principal } from "./principal.ts";
import type { RunRegistry } from "./run-registry.ts";
import { runQueryFromUri } from "./run-list.ts";
import { listRuns } from "./shared-run-history.ts";

/** The URI of the run list (read it, or subscribe to it to hear of runs starting and ending). */
export const RUNS_URI = "agent://runs";

/** Register `agent://runs` (and its query form) on `server`, and notify its subscribers of run starts and ends. */
export function registerRunsResource(
  server: McpServer,
  registry: RunRegistry,
  principalOf: (authInfo: ServerSession["protocol"]["transport"]["authInfo"]) => Principal,
  sees: (owner: string) => (session: ServerSession) => boolean,
): void {
  const read = async (uri: string, authInfo: ServerSession["protocol"]["transport"]["authInfo"]) => {
    let query: ReturnType<typeof runQueryFromUri>;
    try {
      query = runQueryFromUri(uri);
    } catch (e) {
      throw new McpError(ErrorCode.InvalidParams, `${uri}: ${(e as Error).message}`, { uri });
    }
    const p = principalOf(authInfo);
    const page = await listRuns(registry, query, p.role === "operator" ? undefined : p.id);
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(page) }] };
  };
  const description =
    "Runs, newest first, one page at a time: { runs, nextCursor }. Query: status, via, trigger, principal (operators), q, limit, cursor.";
  server.resource({ uri: RUNS_URI, name: "runs", title: "Run history", mimeType: "application/json", description }, (uri, ctx) =>
    read(uri, ctx.authInfo),
  );
  server.resourceTemplate(
    { uriTemplate: `${RUNS_URI}?{+query}`, name: "runs-query", title: "Run history (filtered)", mimeType: "application/json", description },
    (uri, _vars, ctx) => read(uri, ctx.authInfo),
  );
  registry.onRunListChange(({ owner }) => void server.notifyResourceUpdated(RUNS_URI, sees(owner)));
}
