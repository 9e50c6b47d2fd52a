/**
 * `@agentd/sdk/serve`: agentd's own MCP surface (the served agent: `agent.run`, `agent://status`,
 * `agent://runs/{runId}`, `agent://conversations`) built over any runner, and the shapes a client reads from
 * it — the agent's status, pages of the run list, a run's detail, the caller's conversations — and the
 * principals requests are made as; the approval desk over a document store (`StoredApprovalDesk`:
 * `createAgent({ approvals: { desk } })`, served as `agent://approvals`).
 *
 * @module @agentd/sdk/serve
 */
export { createServedMcp, type ServedMcp, type ServedMcpOptions, type ServedRunner } from "./served-mcp.ts";
export type { AgentStatus, RunRecord } from "./run-registry.ts";
export type { RunDetail, ToolCallDetail, TurnDetail } from "./run-detail.ts";
export type { RunPage, RunQuery, RunSummary } from "./run-list.ts";
export { RUNS_URI } from "./runs-resource.ts";
export {
  CONVERSATIONS_URI,
  type ServedConversation,
  type ServedConversationSummary,
  type ServedConversations,
} from "./served-conversations.ts";
export { canonicalPrincipalId, LOCAL_PRINCIPAL, type Principal } from "./principal.ts";
export { StoredApprovalDesk, type StoredDeskOptions } from "./approvals/stored-desk.ts";
export type { ApprovalStore } from "./approvals/approval-records.ts";
export { APPROVALS_URI } from "./approvals/served-approvals.ts";

// ── Old names, deprecated: kept one minor version (packages/sdk/README.md, "Renamed") ──
export { createSelfMcpServer, type SelfMcp, type SelfMcpOptions, type SelfRunner } from "./deprecated-names.ts";
