/**
 * The served agent's old names, kept one minor version so code written against them still compiles: the
 * self-MCP became the served agent's MCP surface (one name for the served surface; docs/architecture.md).
 * Each is deprecated and goes in the next minor version (packages/sdk/README.md, "Renamed").
 */
import { createServedMcp } from "./served-mcp.ts";
import type { ServedMcp, ServedMcpOptions, ServedRunner } from "./served-mcp.ts";

/** @deprecated Renamed {@link createServedMcp}; this name goes in the next minor version. */
export const createSelfMcpServer: typeof createServedMcp = createServedMcp;
/** @deprecated Renamed {@link ServedMcp}; this name goes in the next minor version. */
export type SelfMcp = ServedMcp;
/** @deprecated Renamed {@link ServedMcpOptions}; this name goes in the next minor version. */
export type SelfMcpOptions = ServedMcpOptions;
/** @deprecated Renamed {@link ServedRunner}; this name goes in the next minor version. */
export type SelfRunner = ServedRunner;
