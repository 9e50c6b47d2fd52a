/**
 * The codec benchmark's messages: what an MCP client and server exchange most, in three groups — small
 * messages (tools/call request and result, notifications), list results, and 100 KB tool traffic — and the
 * small traffic again as 2026-07-28 writes it. Every message is valid MCP in its revision; each carries the
 * method it answers so results can be validated.
 */

/** One message as it travels: its JSON text, and the method (of the request a result answers). */
export interface CodecMessage {
  name: string;
  method: string;
  kind: "request" | "notification" | "result";
  text: string;
  /** The MCP revision the message is written in (2026-07-28 only in the modern group). */
  revision: "2025-11-25" | "2026-07-28";
}

const KB100 = 100 * 1024;

const msg = (
  name: string,
  method: string,
  kind: CodecMessage["kind"],
  value: unknown,
  revision: CodecMessage["revision"] = "2025-11-25",
): CodecMessage => ({
  name,
  method,
  kind,
  text: JSON.stringify(value),
  revision,
});

const tool = (i: number) => ({
  name: `tool_${i}`,
  title: `Tool number ${i}`,
  description: `Looks things up in system ${i}; returns at most \`limit\` rows as JSON.`,
  inputSchema: {
    type: "object",
    properties: { query: { type: "string", description: "what to look for" }, limit: { type: "integer", minimum: 1, maximum: 100 } },
    required: ["query"],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
});

/** ~100 KB of realistic rows for structured tool traffic. */
function rows(bytes: number): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const row = {
      id: `INC-${10_000 + i}`,
      team: ["ops", "infra", "web"][i % 3],
      severity: (i % 4) + 1,
      open: i % 5 !== 0,
      title: `Disk pressure on node-${i}`,
    };
    size += JSON.stringify(row).length + 1;
    out.push(row);
  }
  return out;
}

const bigText = (bytes: number) => "The quick brown fox jumps over the lazy dog. ".repeat(Math.ceil(bytes / 45)).slice(0, bytes);

/** Small messages: the bulk of MCP traffic. */
export const SMALL: CodecMessage[] = [
  msg("tools/call request", "tools/call", "request", {
    jsonrpc: "2.0",
    id: 17,
    method: "tools/call",
    params: { name: "search", arguments: { query: "open incidents", limit: 10 }, _meta: { progressToken: "p-17" } },
  }),
  msg("tools/call result", "tools/call", "result", {
    jsonrpc: "2.0",
    id: 17,
    result: { content: [{ type: "text", text: "3 open incidents: INC-1041, INC-1042, INC-1043" }], isError: false },
  }),
  msg("notifications/progress", "notifications/progress", "notification", {
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: "p-17", progress: 40, total: 100, message: "scanning" },
  }),
  msg("notifications/message", "notifications/message", "notification", {
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "info", logger: "search", data: { event: "query", ms: 12 } },
  }),
  msg("notifications/initialized", "notifications/initialized", "notification", { jsonrpc: "2.0", method: "notifications/initialized" }),
  msg("notifications/cancelled", "notifications/cancelled", "notification", {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 16, reason: "deadline" },
  }),
];

/** List results: a server's tool and resource catalogues. */
export const LISTS: CodecMessage[] = [
  msg("tools/list result (10 tools)", "tools/list", "result", {
    jsonrpc: "2.0",
    id: 2,
    result: { tools: Array.from({ length: 10 }, (_, i) => tool(i)) },
  }),
  msg("resources/list result (20 resources)", "resources/list", "result", {
    jsonrpc: "2.0",
    id: 3,
    result: {
      resources: Array.from({ length: 20 }, (_, i) => ({
        uri: `file:///data/report-${i}.md`,
        name: `report-${i}.md`,
        mimeType: "text/markdown",
        size: 1000 + i,
      })),
      nextCursor: "page-2",
    },
  }),
];

/** 100 KB tool traffic: big arguments, big text results, big structured results. */
export const LARGE: CodecMessage[] = [
  msg("tools/call request (100 KB arguments)", "tools/call", "request", {
    jsonrpc: "2.0",
    id: 40,
    method: "tools/call",
    params: { name: "ingest", arguments: { rows: rows(KB100) } },
  }),
  msg("tools/call result (100 KB text)", "tools/call", "result", {
    jsonrpc: "2.0",
    id: 41,
    result: { content: [{ type: "text", text: bigText(KB100) }] },
  }),
  msg("tools/call result (100 KB structuredContent)", "tools/call", "result", {
    jsonrpc: "2.0",
    id: 42,
    result: { content: [{ type: "text", text: "see structuredContent" }], structuredContent: { rows: rows(KB100) } },
  }),
];

const STATELESS_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  "io.modelcontextprotocol/clientInfo": { name: "bench-client", version: "1.0.0" },
};
const SERVER_META = { "io.modelcontextprotocol/serverInfo": { name: "bench-server", version: "1.0.0" } };

/**
 * The small group's traffic as MCP 2026-07-28 sends it: the per-request `_meta` envelope on requests,
 * `resultType` and the server's identity on results, the caching hints on a list, a listen notification.
 */
export const MODERN: CodecMessage[] = [
  msg(
    "tools/call request (2026-07-28)",
    "tools/call",
    "request",
    {
      jsonrpc: "2.0",
      id: 17,
      method: "tools/call",
      params: { name: "search", arguments: { query: "open incidents", limit: 10 }, _meta: { ...STATELESS_META, progressToken: "p-17" } },
    },
    "2026-07-28",
  ),
  msg(
    "tools/call result (2026-07-28)",
    "tools/call",
    "result",
    {
      jsonrpc: "2.0",
      id: 17,
      result: {
        resultType: "complete",
        content: [{ type: "text", text: "3 open incidents: INC-1041, INC-1042, INC-1043" }],
        isError: false,
        _meta: SERVER_META,
      },
    },
    "2026-07-28",
  ),
  msg(
    "tools/list result (2026-07-28, 3 tools)",
    "tools/list",
    "result",
    {
      jsonrpc: "2.0",
      id: 2,
      result: {
        resultType: "complete",
        tools: Array.from({ length: 3 }, (_, i) => tool(i)),
        ttlMs: 60_000,
        cacheScope: "public",
        _meta: SERVER_META,
      },
    },
    "2026-07-28",
  ),
  msg(
    "notifications/progress (2026-07-28)",
    "notifications/progress",
    "notification",
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p-17", progress: 40, total: 100, message: "scanning" },
    },
    "2026-07-28",
  ),
];

/** The groups the benchmark reports, each a row group in the README. */
export const GROUPS: Array<{ id: string; label: string; messages: CodecMessage[] }> = [
  { id: "small", label: `small messages (${SMALL.length}: tools/call request+result, 4 notifications)`, messages: SMALL },
  { id: "lists", label: `list results (${LISTS.length}: 10 tools, 20 resources)`, messages: LISTS },
  {
    id: "modern",
    label: `2026-07-28 small messages (${MODERN.length}: tools/call request+result, tools/list result, progress)`,
    messages: MODERN,
  },
  { id: "large", label: `100 KB messages (${LARGE.length}: tools/call arguments, text result, structured result)`, messages: LARGE },
];
