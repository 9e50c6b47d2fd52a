/** Corpus: every notification of 2025-11-25, and error responses. */
import { ALL, ONLY_2025_11_25, type CorpusEntry } from "./corpus-types.ts";

const note = (
  name: string,
  method: string,
  params: Record<string, unknown> | undefined,
  revisions: CorpusEntry["revisions"],
): CorpusEntry => ({
  name,
  method,
  revisions,
  message: params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params },
});

let nextId = 2000;
const err = (name: string, method: string, error: Record<string, unknown>, revisions: CorpusEntry["revisions"]): CorpusEntry => ({
  name,
  method,
  revisions,
  message: { jsonrpc: "2.0", id: nextId++, error },
});

/** Every notification kind, and the error responses we send or expect. */
export const CORPUS_NOTIFICATIONS_AND_ERRORS: CorpusEntry[] = [
  note("notifications/initialized", "notifications/initialized", undefined, ALL),
  note("notifications/cancelled", "notifications/cancelled", { requestId: "r-12", reason: "deadline exceeded" }, ALL),
  // Since 2025-11-25 `requestId` is optional (tasks are cancelled with tasks/cancel).
  note("notifications/cancelled (no requestId)", "notifications/cancelled", { reason: "shutting down" }, ONLY_2025_11_25),
  note("notifications/progress", "notifications/progress", { progressToken: "p-1", progress: 3, total: 10, message: "indexing" }, ALL),
  note(
    "notifications/tasks/status",
    "notifications/tasks/status",
    {
      taskId: "task-42",
      status: "completed",
      createdAt: "2025-11-25T10:00:00Z",
      lastUpdatedAt: "2025-11-25T10:01:00Z",
      ttl: null,
      statusMessage: "done",
    },
    ONLY_2025_11_25,
  ),
  note("notifications/roots/list_changed", "notifications/roots/list_changed", undefined, ALL),
  note("notifications/resources/list_changed", "notifications/resources/list_changed", {}, ALL),
  note("notifications/resources/updated", "notifications/resources/updated", { uri: "file:///data/inbox.md" }, ALL),
  note("notifications/prompts/list_changed", "notifications/prompts/list_changed", undefined, ALL),
  note("notifications/tools/list_changed", "notifications/tools/list_changed", { _meta: { reason: "plugin loaded" } }, ALL),
  note(
    "notifications/message",
    "notifications/message",
    { level: "error", logger: "database", data: { error: "connection refused", attempt: 3 } },
    ALL,
  ),
  note("notifications/elicitation/complete", "notifications/elicitation/complete", { elicitationId: "elic-7" }, ONLY_2025_11_25),
  err(
    "error response (method not found)",
    "sampling/createMessage",
    { code: -32601, message: "Method not found: sampling/createMessage" },
    ALL,
  ),
  err(
    "error response (invalid params, with data)",
    "tools/call",
    { code: -32602, message: "Invalid params for tools/call: params.name: required, but missing", data: { path: "params.name" } },
    ALL,
  ),
  err(
    "error response (resource not found)",
    "resources/read",
    { code: -32002, message: "Resource not found", data: { uri: "file:///nope" } },
    ALL,
  ),
  err(
    "error response (URL elicitation required)",
    "tools/call",
    {
      code: -32042,
      message: "This request requires more information.",
      data: {
        elicitations: [{ mode: "url", elicitationId: "elic-8", url: "https://auth.example/connect", message: "Authorise access." }],
      },
    },
    ALL,
  ),
];
