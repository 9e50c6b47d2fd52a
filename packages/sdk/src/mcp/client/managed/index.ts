/** Managed MCP connections: reconnect with backoff, re-subscribe, replay what is safe. */
export { ManagedMcpClient } from "./managed-client.ts";
export type { ManagedClientEvents, ManagedClientOptions, ManagedClientState } from "./managed-options.ts";
export { DEFAULT_RECONNECT_POLICY, reconnectBackoff, reconnectPolicy, type ReconnectPolicy } from "./backoff.ts";
export { REPLAYABLE_METHODS, carriesRunId, connectionLoss, mayReplay, type LossReason } from "./replay-policy.ts";
