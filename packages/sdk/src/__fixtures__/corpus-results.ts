/** Corpus: a result for every request of 2025-11-25 (and task-augmented answers), plus variants. */
import { ALL, ONLY_2025_11_25, SINCE_2025_06_18, type CorpusEntry } from "./corpus-types.ts";

let nextId = 1000;
const res = (name: string, method: string, result: Record<string, unknown>, revisions: CorpusEntry["revisions"]): CorpusEntry => ({
  name,
  method,
  revisions,
  message: { jsonrpc: "2.0", id: nextId++, result },
});

const icon = { src: "data:image/svg+xml;base64,PHN2Zy8+", mimeType: "image/svg+xml", sizes: ["any"], theme: "dark" };
const task = (status: string, extra: Record<string, unknown> = {}) => ({
  taskId: "task-42",
  status,
  createdAt: "2025-11-25T10:00:00Z",
  lastUpdatedAt: "2025-11-25T10:00:05Z",
  ttl: 60000,
  pollInterval: 1000,
  ...extra,
});
const text = (t: string) => ({ type: "text", text: t });
const image = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png", annotations: { audience: ["user"], priority: 0.5 } };
const audio = { type: "audio", data: "UklGRiQAAABXQVZF", mimeType: "audio/wav" };
const embedded = {
  type: "resource",
  resource: { uri: "file:///data/report.md", mimeType: "text/markdown", text: "# Report" },
  annotations: { audience: ["assistant"], priority: 1, lastModified: "2025-11-25T09:00:00Z" },
};
const link = {
  type: "resource_link",
  uri: "file:///data/large.csv",
  name: "large.csv",
  title: "Large data",
  description: "Too big to embed",
  mimeType: "text/csv",
  size: 1048576,
};

/** Every result kind. */
export const CORPUS_RESULTS: CorpusEntry[] = [
  res(
    "initialize result (every server capability)",
    "initialize",
    {
      protocolVersion: "2025-11-25",
      capabilities: {
        logging: {},
        completions: {},
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        tools: { listChanged: true },
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        experimental: { "agentd/subagents": {} },
      },
      serverInfo: { name: "agentd", title: "agentd", version: "0.1.0", icons: [icon], websiteUrl: "https://agentd.example" },
      instructions: "Call `status` first.",
      _meta: { "agentd.dev/build": "abc123" },
    },
    ALL,
  ),
  res("ping result", "ping", {}, ALL),
  res(
    "resources/list result",
    "resources/list",
    {
      resources: [
        {
          uri: "file:///data/inbox.md",
          name: "inbox.md",
          title: "Inbox",
          description: "Things to triage",
          mimeType: "text/markdown",
          size: 2048,
          annotations: { audience: ["user", "assistant"], priority: 0.8, lastModified: "2025-11-25T09:00:00Z" },
          icons: [icon],
          _meta: { etag: "w/1" },
        },
        { uri: "agent://subagent/7/result", name: "subagent-7-result" },
      ],
      nextCursor: "page-3",
    },
    ALL,
  ),
  res(
    "resources/templates/list result",
    "resources/templates/list",
    {
      resourceTemplates: [{ uriTemplate: "file:///logs/{date}.log", name: "daily-log", title: "Daily log", mimeType: "text/plain" }],
    },
    ALL,
  ),
  res(
    "resources/read result (text and blob)",
    "resources/read",
    {
      contents: [
        { uri: "file:///data/inbox.md", mimeType: "text/markdown", text: "- fix the build\n" },
        { uri: "file:///data/logo.png", mimeType: "image/png", blob: "iVBORw0KGgo=" },
      ],
    },
    ALL,
  ),
  res("resources/subscribe result", "resources/subscribe", {}, ALL),
  res("resources/unsubscribe result", "resources/unsubscribe", {}, ALL),
  res(
    "prompts/list result",
    "prompts/list",
    {
      prompts: [
        {
          name: "triage",
          title: "Triage",
          description: "Triage the inbox",
          arguments: [{ name: "priority", title: "Priority", description: "low|high", required: true }],
          icons: [icon],
        },
      ],
    },
    ALL,
  ),
  res(
    "prompts/get result (text, image, embedded resource)",
    "prompts/get",
    {
      description: "Triage prompt",
      messages: [
        { role: "user", content: text("Triage these items.") },
        { role: "user", content: image },
        { role: "user", content: embedded },
        { role: "assistant", content: audio },
      ],
    },
    ALL,
  ),
  res("prompts/get result (resource_link)", "prompts/get", { messages: [{ role: "user", content: link }] }, SINCE_2025_06_18),
  res(
    "tools/list result (schemas, annotations, execution, icons)",
    "tools/list",
    {
      tools: [
        {
          name: "get_weather",
          title: "Weather",
          description: "Current weather for a city",
          inputSchema: {
            $schema: "https://json-schema.org/draft/2020-12/schema",
            type: "object",
            properties: { city: { type: "string", minLength: 1 } },
            required: ["city"],
            additionalProperties: false,
          },
          outputSchema: {
            type: "object",
            properties: { celsius: { type: "number" }, sky: { type: "string" } },
            required: ["celsius"],
          },
          annotations: { title: "Weather", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
          execution: { taskSupport: "optional" },
          icons: [icon],
          _meta: { "agentd.dev/cost": 1 },
        },
        { name: "noop", inputSchema: { type: "object" } },
      ],
      nextCursor: "tools-2",
    },
    ALL,
  ),
  res("tools/call result (text, image, audio, embedded resource)", "tools/call", { content: [text("ok"), image, audio, embedded] }, ALL),
  res(
    "tools/call result (resource_link, structuredContent)",
    "tools/call",
    { content: [text('{"celsius":18}'), link], structuredContent: { celsius: 18, sky: "cloudy" } },
    SINCE_2025_06_18,
  ),
  res("tools/call result (tool error)", "tools/call", { content: [text("city not found: Atlantis")], isError: true }, ALL),
  res("tools/call result (task created)", "tools/call", { task: task("working", { statusMessage: "queued" }) }, ONLY_2025_11_25),
  res("logging/setLevel result", "logging/setLevel", {}, ALL),
  res(
    "completion/complete result",
    "completion/complete",
    { completion: { values: ["ops", "operations"], total: 2, hasMore: false } },
    ALL,
  ),
  res("tasks/get result", "tasks/get", task("working", { statusMessage: "step 2 of 5" }), ONLY_2025_11_25),
  res(
    "tasks/result result (the tool's result)",
    "tasks/result",
    { content: [text("done")], _meta: { "io.modelcontextprotocol/related-task": { taskId: "task-42" } } },
    ONLY_2025_11_25,
  ),
  res(
    "tasks/list result",
    "tasks/list",
    { tasks: [task("completed"), task("input_required", { taskId: "task-43", ttl: null })], nextCursor: "t-3" },
    ONLY_2025_11_25,
  ),
  res("tasks/cancel result", "tasks/cancel", task("cancelled", { statusMessage: "cancelled by operator" }), ONLY_2025_11_25),
  res(
    "sampling/createMessage result (text)",
    "sampling/createMessage",
    { role: "assistant", content: text("The incident was a DNS outage."), model: "claude-3-5-sonnet-20241022", stopReason: "endTurn" },
    ALL,
  ),
  res(
    "sampling/createMessage result (tool use)",
    "sampling/createMessage",
    {
      role: "assistant",
      content: [text("Let me check."), { type: "tool_use", id: "call-2", name: "get_weather", input: { city: "Oslo" } }],
      model: "claude-sonnet-4",
      stopReason: "toolUse",
    },
    ONLY_2025_11_25,
  ),
  res("sampling/createMessage result (task created)", "sampling/createMessage", { task: task("working") }, ONLY_2025_11_25),
  res("roots/list result", "roots/list", { roots: [{ uri: "file:///home/user/project", name: "project" }, { uri: "file:///data" }] }, ALL),
  res(
    "elicitation/create result (accept)",
    "elicitation/create",
    { action: "accept", content: { email: "ops@example.com", replicas: 3, confirm: true } },
    SINCE_2025_06_18,
  ),
  res(
    "elicitation/create result (accept, multi-select)",
    "elicitation/create",
    { action: "accept", content: { tags: ["a", "b"], size: "s" } },
    ONLY_2025_11_25,
  ),
  res("elicitation/create result (decline)", "elicitation/create", { action: "decline" }, SINCE_2025_06_18),
  res("elicitation/create result (task created)", "elicitation/create", { task: task("input_required") }, ONLY_2025_11_25),
];
