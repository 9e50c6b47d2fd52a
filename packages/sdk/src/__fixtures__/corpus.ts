/**
 * A corpus of realistic MCP messages: at least one of every request, result, notification and error kind
 * of revision 2025-11-25, plus variants that tell the revisions apart. Each entry says in which revisions
 * the official JSON Schema accepts it; the oracle tests hold our codecs, the official schemas and the
 * official SDK to that. Test-only; never shipped.
 */
import type { CorpusEntry } from "./corpus-types.ts";
import { CORPUS_REQUESTS } from "./corpus-requests.ts";
import { CORPUS_RESULTS } from "./corpus-results.ts";
import { CORPUS_NOTIFICATIONS_AND_ERRORS } from "./corpus-notifications.ts";

export * from "./corpus-types.ts";

/** The whole corpus. */
export const CORPUS: readonly CorpusEntry[] = [...CORPUS_REQUESTS, ...CORPUS_RESULTS, ...CORPUS_NOTIFICATIONS_AND_ERRORS];

/** The kind of a corpus message. */
export const kindOf = (e: CorpusEntry): "request" | "notification" | "result" | "error" =>
  "method" in e.message ? ("id" in e.message ? "request" : "notification") : "result" in e.message ? "result" : "error";
