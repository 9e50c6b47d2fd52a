/** The agent: createAgent wires MCP clients, the tool set and the loop. */
export { createAgent, newRunId, type Agent, type AgentOptions, type AgentRunOptions } from "./create-agent.ts";
export { connectServer, connectManagedServer, managedClientFor, transportFor, upstreamError, CLIENT_INFO, type ConnectServerOptions } from "./connect-server.ts";
export { McpToolSet, splitQualified, type McpToolSetOptions, type ToolClient } from "./mcp-tool-set.ts";
export { renderToolResult } from "./render-content.ts";
export * from "./triggers/index.ts";
