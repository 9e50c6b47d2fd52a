/** Serving: agentd's own MCP surface (self-MCP) and its observable state. */
export { createSelfMcpServer, type SelfMcp, type SelfMcpOptions, type SelfRunner } from "./self-mcp.ts";
export { RunRegistry, DEFAULT_RUN_HISTORY, type AgentStatus, type RunHistoryLimits, type RunRecord } from "./run-registry.ts";
export { bearerTokenEntries, canonicalPrincipalId, LOCAL_PRINCIPAL, type Principal } from "./principal.ts";
export { ServedPrompts, expandPrompt, promptInstruction, type ServedPrompt, type ServedPromptArgument } from "./served-prompts.ts";
export type { RunListChange, RunStartInfo, RunVia, ToolInFlight } from "./run-registry.ts";
export { RUN_DETAIL_LIMITS, type RunDetail, type ToolCallDetail, type TurnDetail } from "./run-detail.ts";
export { DEFAULT_RUN_PAGE, MAX_RUN_PAGE, runQueryFromUri, type RunPage, type RunQuery, type RunSummary } from "./run-list.ts";
export { RUNS_URI } from "./runs-resource.ts";
export { ServeMetrics } from "./serve-metrics.ts";
export { MetricRegistry, PROMETHEUS_CONTENT_TYPE, type Labels } from "./prometheus-text.ts";
export { METRICS_PATH, type MetricsEndpointOptions } from "./metrics-endpoint.ts";
