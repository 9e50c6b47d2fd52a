/**
 * Transports: one interface, several implementations.
 *
 * @module @agentd/sdk/transport
 */
export * from "./types.ts";
export { MemoryTransport } from "./memory.ts";
export * from "./http-client/index.ts";
export * from "./stdio-streams.ts";
export * from "./stdio-self.ts";
export * from "./stdio-child.ts";
export { discardPrelaunchedServers, prelaunchStdioServer } from "./prelaunch.ts";
export { selfCommand } from "../_internal/self-command.ts";
export * from "./http-server/index.ts";
