/**
 * The served agent's old names, kept one minor version so code written against them still compiles (one
 * name for the served surface; docs/architecture.md). Each is deprecated and goes in the next minor version
 * (packages/sdk/README.md, "Renamed").
 */
import type { ServedEndpoint } from "./serve-options.ts";

/** @deprecated Renamed {@link ServedEndpoint}; this name goes in the next minor version. */
export type Serving = ServedEndpoint;
