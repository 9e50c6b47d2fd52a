/**
 * @agentd/testkit — fake MCP servers and fake LLM gateways for integration tests of agentd agents:
 * real processes, real HTTP on loopback, scriptable and deterministic.
 *
 * @module @agentd/testkit
 */
export * from "./gateway/index.ts";
export * from "./mcp/index.ts";
