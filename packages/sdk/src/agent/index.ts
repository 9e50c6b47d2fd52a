/** The agent: createAgent wires MCP clients, the tool set and the loop. */
export { createAgent, newRunId, type Agent, type AgentOptions, type AgentRunOptions } from "./create-agent.ts";
export { connectServer, transportFor, CLIENT_INFO } from "./connect-server.ts";
export { McpToolSet, splitQualified } from "./mcp-tool-set.ts";
export { renderToolResult } from "./render-content.ts";
