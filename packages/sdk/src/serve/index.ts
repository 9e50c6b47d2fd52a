/** Serving: agentd's own MCP surface (self-MCP) and its observable state. */
export { createSelfMcpServer, type SelfMcp, type SelfMcpOptions, type SelfRunner } from "./self-mcp.ts";
export { RunRegistry, DEFAULT_RUN_HISTORY, type AgentStatus, type RunHistoryLimits, type RunRecord } from "./run-registry.ts";
export { bearerTokenEntries, canonicalPrincipalId, LOCAL_PRINCIPAL, type Principal } from "./principal.ts";
export { ServedPrompts, expandPrompt, promptInstruction, type ServedPrompt, type ServedPromptArgument } from "./served-prompts.ts";
