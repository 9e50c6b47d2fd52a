/**
 * The wire layer: JSON-RPC envelope, MCP schemas and codecs per revision, framing.
 *
 * @module @agentd/sdk/wire
 */
export * from "./jsonrpc.ts";
export * from "./errors.ts";
export * from "./codec.ts";
export * from "./sse-parse.ts";
export * from "./schemas/index.ts";
export * from "./codecs.ts";
export * from "./ndjson.ts";
export * from "./length-prefixed.ts";
