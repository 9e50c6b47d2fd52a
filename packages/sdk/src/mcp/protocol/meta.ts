/**
 * `_meta` keys this implementation defines.
 *
 * Naming rules (basic/index, "General fields → _meta"): a key is an optional prefix of dot-separated
 * labels ending in `/`, then a name. A prefix is reserved for MCP when its second label is
 * `modelcontextprotocol` or `mcp`. `agentd.dev/` has labels `agentd` and `dev`: not reserved.
 */

/** The run id travelling in `_meta` of every `tools/call` (idempotency across restarts, DESIGN.md). */
export const RUN_ID_META_KEY = "agentd.dev/run-id";
