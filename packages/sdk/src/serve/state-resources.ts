/**
 * The served agent's state resources: `agent://status` (idle or running, the runs, usage; the triggers and
 * sampling for the local user and operators) and `agent://runs/{runId}` (a run's record: this replica's, or,
 * with a shared history, another replica's), each answering only what the caller's principal may see.
 */
import type { McpServer } from "../mcp/server/server.ts";
import { McpError } from "../wire/errors.ts";
import { ErrorCode } from "../wire/jsonrpc.ts";
import { expiredMessage } from "./agent-run-tool.ts";
import { LOCAL_PRINCIPAL, type Principal, type resolvePrincipal } from "./principal.ts";
import type { RunRegistry } from "./run-registry.ts";
import { readRun } from "./shared-run-history.ts";

/** Register `agent://status` and `agent://runs/{runId}` on `server`. */
export function registerStateResources(
  server: McpServer,
  registry: RunRegistry,
  principalOf: (authInfo: Parameters<typeof resolvePrincipal>[0]) => Principal,
  options: { triggers?: () => unknown; sampling?: () => unknown; prices?: () => unknown },
): void {
  server.resource(
    {
      uri: "agent://status",
      name: "status",
      title: "agentd status",
      mimeType: "application/json",
      description: "idle or running, current runs, usage so far",
    },
    (uri, ctx) => {
      const p = principalOf(ctx.authInfo);
      const operator = p.role === "operator";
      const status: Record<string, unknown> = { ...registry.status(operator ? undefined : p.id) };
      if (operator) status.principals = registry.principals();
      // The triggers are the agent's own configuration: its local user's and the operators' to see.
      if (options.triggers && (operator || p.id === LOCAL_PRINCIPAL)) status.triggers = options.triggers();
      if (options.sampling && (operator || p.id === LOCAL_PRINCIPAL)) status.sampling = options.sampling();
      const prices = options.prices?.();
      if (prices) status.prices = prices;
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(status) }] };
    },
  );
  server.resourceTemplate(
    {
      uriTemplate: "agent://runs/{runId}",
      name: "run",
      title: "A run",
      mimeType: "application/json",
      description: "A run's status, then its result",
    },
    async (uri, vars, ctx) => {
      const runId = String(vars.runId);
      const p = principalOf(ctx.authInfo);
      const own = registry.get(runId, p.id);
      // Held here first; then, with a shared history, the run as another replica wrote it to the store.
      const found = own ? undefined : await readRun(registry, runId, { id: p.id, operator: p.role === "operator" });
      const record = own ?? (found && found.owner !== p.id ? { ...found.record, principal: found.owner } : found?.record);
      // Resource-not-found (-32002) with the URI, as the resources spec shows; "expired" says why.
      if (!record) {
        if (registry.expired(runId, p.id))
          throw new McpError(ErrorCode.ResourceNotFound, expiredMessage(registry, runId, "its record is no longer available"), {
            uri,
            expired: true,
          });
        throw new McpError(ErrorCode.ResourceNotFound, `no run ${runId}`, { uri });
      }
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(record) }] };
    },
  );
}
