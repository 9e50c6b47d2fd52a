/**
 * The `_meta` keys of the stateless revisions (2026-07-28 on; basic spec, "_meta"), in a module of their own:
 * the MCP layer names them on every session's paths, and `methods-2026-07-28.ts`, which also defines them for its
 * schemas, makes those schemas (and loads sampling, elicitation, the tasks extension, …) when it loads — which a
 * server whose clients all speak 2025-11-25 never needs.
 */

/** The `_meta` keys of the modern revisions (basic spec, "_meta"). */
export const STATELESS_META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;
