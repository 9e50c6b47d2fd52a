/** The wire layer: JSON-RPC envelope, MCP schemas and codecs per revision, framing. */
export * from "./jsonrpc.ts";
export * from "./errors.ts";
export * from "./codec.ts";
