/**
 * `@agentd/sdk/mcp/server`: the MCP server alone — `McpServer` (tools, resources, prompts, completions,
 * sessions), `ServerSession`, their options, handler and context types, and the shared types a server's
 * signatures name (`CapabilityConfig`, `RequestContext`, `RequestOptions`, `RUN_ID_META_KEY`). `@agentd/sdk/mcp`
 * exports the same names beside the client; this entry exists so that a server loads none of the client's
 * modules (from sources, as Bun runs the package, an entry's barrel loads everything it names).
 *
 * @module @agentd/sdk/mcp/server
 */
export { McpServer } from "./server.ts";
export type { McpServerOptions } from "./server.ts";
export { ServerSession } from "./session.ts";
export type { ServerContext, ServerSessionEvents } from "./session.ts";
export type {
  Completer,
  Completers,
  PromptGetter,
  Registered,
  ResourceReader,
  TemplateReader,
  ToolDefinition,
  ToolHandler,
  ToolOptions,
} from "./registry.ts";

// ── What the server's signatures name of the shared types ──
export type { CapabilityConfig, ElicitationHandler, ElicitationMode, SamplingHandler } from "../capabilities.ts";
export type { NotificationOptions, Progress, RequestContext, RequestOptions } from "../protocol/types.ts";
export { RUN_ID_META_KEY } from "../protocol/meta.ts";
