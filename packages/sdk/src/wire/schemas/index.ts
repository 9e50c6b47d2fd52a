/**
 * MCP message schemas (valibot) and their inferred types, under the names of the official schema
 * definitions of revision 2025-11-25. Per-revision differences live in the method tables and codecs.
 */
export * from "./base.ts";
export * from "./content.ts";
export * from "./capabilities.ts";
export * from "./lifecycle.ts";
export * from "./tools.ts";
export * from "./resources.ts";
export * from "./prompts.ts";
export * from "./completion.ts";
export * from "./logging.ts";
export * from "./sampling.ts";
export * from "./elicitation.ts";
export * from "./roots.ts";
export * from "./tasks.ts";
export * from "./messages.ts";
export * from "./method-table.ts";
export * from "./methods-2025-11-25.ts";
export * from "./methods-2026-07-28.ts";
