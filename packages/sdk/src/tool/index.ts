/** Tools defined in code: `tool()`, typed from any Standard Schema validator, and the ToolSet over them. */
export { tool, isLocalTool, type LocalTool, type LocalToolResult, type ToolDefinition, type ToolReturn } from "./tool.ts";
export { LocalToolSet, namedLocalTools, type LocalTools } from "./local-tool-set.ts";
export type { StandardSchemaV1, StandardJSONSchemaV1 } from "./standard-schema.ts";
