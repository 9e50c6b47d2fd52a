/**
 * `@agentd/sdk/store`: versioned JSON documents behind an MCP server (`agentd store`), on a directory or Redis,
 * and a typed client for any MCP store. Used for run claims and checkpoints (docs/durability.md).
 *
 * @module @agentd/sdk/store
 */
export type { ChangeListener, CompareAndSetResult, ListedKey, StoreBackend, StoredDocument } from "./types.ts";
export { DirectoryBackend } from "./directory-backend.ts";
export { RedisBackend } from "./redis-backend.ts";
export type { RedisBackendOptions } from "./redis-backend.ts";
export { openStoreBackend } from "./open-backend.ts";
export type { StoreLocation } from "./open-backend.ts";
export { createStoreServer, storeDocumentUri } from "./store-server.ts";
export type { StoreServerOptions } from "./store-server.ts";
export { StoreClient } from "./store-client.ts";
export { serveStoreStdio } from "./serve-store.ts";
export type { ServeStoreOptions } from "./serve-store.ts";
export { serveStoreHttp } from "./serve-store-http.ts";
export type { ServeStoreHttpOptions, ServedStore, StoreHttpOptions } from "./serve-store-http.ts";
export { RunClaims } from "./run-claims.ts";
export type { ClaimDocument, ClaimOutcome, ClaimStore, HeldClaim, RunClaimsOptions } from "./run-claims.ts";
export { McpStoreTokenStore } from "./oauth-token-store.ts";
export type { McpStoreTokenStoreOptions } from "./oauth-token-store.ts";
