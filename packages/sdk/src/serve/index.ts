/** Serving: agentd's own MCP surface (self-MCP) and its observable state. */
export { createSelfMcpServer, type SelfMcp, type SelfMcpOptions, type SelfRunner } from "./self-mcp.ts";
export { RunRegistry, type AgentStatus, type RunRecord } from "./run-registry.ts";
