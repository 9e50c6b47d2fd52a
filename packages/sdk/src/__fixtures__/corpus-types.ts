/** The corpus entry type and revision sets (kept apart from `corpus.ts` to avoid an import cycle). */
import type { ProtocolRevision } from "../wire/codec.ts";

/** One corpus message. */
export interface CorpusEntry {
  /** A readable, unique name, e.g. `tools/call result (resource_link, structuredContent)`. */
  name: string;
  /** The method: of the message itself, or, for results and errors, of the request it answers. */
  method: string;
  /** The whole JSON-RPC message. */
  message: Record<string, unknown>;
  /** The revisions whose official schema accepts the message. */
  revisions: readonly ProtocolRevision[];
  /** Official SDK verdict when it differs from "valid in 2025-11-25" (with the reason). */
  sdkDiffers?: string;
}

/** Valid in every supported revision. */
export const ALL: readonly ProtocolRevision[] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/** Valid from 2025-06-18 on. */
export const SINCE_2025_06_18: readonly ProtocolRevision[] = ["2025-11-25", "2025-06-18"];
/** Valid in 2025-11-25 only. */
export const ONLY_2025_11_25: readonly ProtocolRevision[] = ["2025-11-25"];
