/** Corpus: every request of 2025-11-25, with realistic params, plus revision-telling variants. */
import { ALL, ONLY_2025_11_25, SINCE_2025_06_18, type CorpusEntry } from "./corpus-types.ts";

let nextId = 1;
const req = (
  name: string,
  method: string,
  params: Record<string, unknown> | undefined,
  revisions: CorpusEntry["revisions"],
): CorpusEntry => ({
  name,
  method,
  revisions,
  message: params === undefined ? { jsonrpc: "2.0", id: nextId++, method } : { jsonrpc: "2.0", id: `r-${nextId++}`, method, params },
});

const icon = { src: "https://agentd.example/icon.png", mimeType: "image/png", sizes: ["48x48"], theme: "light" };

/** Every request kind. */
export const CORPUS_REQUESTS: CorpusEntry[] = [
  req(
    "initialize request (every client capability)",
    "initialize",
    {
      protocolVersion: "2025-11-25",
      capabilities: {
        roots: { listChanged: true },
        sampling: { context: {}, tools: {} },
        elicitation: { form: {}, url: {} },
        tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
        experimental: { "agentd/checkpoint": { version: 1 } },
      },
      clientInfo: {
        name: "agentd",
        title: "agentd runtime",
        version: "0.1.0",
        description: "A headless agent runtime",
        websiteUrl: "https://agentd.example",
        icons: [icon],
      },
    },
    ALL,
  ),
  req(
    "initialize request (2025-03-26 client, no capabilities)",
    "initialize",
    { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "old-client", version: "1.0.0" } },
    ALL,
  ),
  req("ping request", "ping", undefined, ALL),
  req("resources/list request", "resources/list", { cursor: "page-2" }, ALL),
  req("resources/templates/list request", "resources/templates/list", {}, ALL),
  req("resources/read request", "resources/read", { uri: "file:///data/inbox.md" }, ALL),
  req("resources/subscribe request", "resources/subscribe", { uri: "file:///data/inbox.md" }, ALL),
  req("resources/unsubscribe request", "resources/unsubscribe", { uri: "file:///data/inbox.md" }, ALL),
  req("prompts/list request", "prompts/list", undefined, ALL),
  req("prompts/get request", "prompts/get", { name: "triage", arguments: { priority: "high", team: "ops" } }, ALL),
  req("tools/list request", "tools/list", { _meta: { progressToken: 7 } }, ALL),
  req(
    "tools/call request (progress token, run id)",
    "tools/call",
    {
      name: "search",
      arguments: { query: "open incidents", limit: 10, filters: { team: ["ops"] } },
      _meta: { progressToken: "p-1", "agentd.dev/run-id": "run-2025-01-01" },
    },
    ALL,
  ),
  // Older schemas are open objects, so an unknown `task` field is accepted there too.
  req("tools/call request (task-augmented)", "tools/call", { name: "research", arguments: {}, task: { ttl: 60000 } }, ALL),
  req("logging/setLevel request", "logging/setLevel", { level: "warning" }, ALL),
  req(
    "completion/complete request (prompt argument, context)",
    "completion/complete",
    {
      ref: { type: "ref/prompt", name: "triage" },
      argument: { name: "team", value: "op" },
      context: { arguments: { priority: "high" } },
    },
    ALL,
  ),
  req(
    "completion/complete request (resource reference)",
    "completion/complete",
    { ref: { type: "ref/resource", uri: "file:///logs/app.log" }, argument: { name: "path", value: "ap" } },
    ALL,
  ),
  req("tasks/get request", "tasks/get", { taskId: "task-42" }, ONLY_2025_11_25),
  req("tasks/result request", "tasks/result", { taskId: "task-42" }, ONLY_2025_11_25),
  req("tasks/list request", "tasks/list", { cursor: "t-page-2" }, ONLY_2025_11_25),
  req("tasks/cancel request", "tasks/cancel", { taskId: "task-42" }, ONLY_2025_11_25),
  req(
    "sampling/createMessage request (text)",
    "sampling/createMessage",
    {
      messages: [
        { role: "user", content: { type: "text", text: "Summarise the incident report." } },
        { role: "assistant", content: { type: "text", text: "Which report?" } },
        { role: "user", content: { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" } },
      ],
      modelPreferences: {
        hints: [{ name: "claude-3-5-sonnet" }, { name: "sonnet" }],
        costPriority: 0.3,
        speedPriority: 0.5,
        intelligencePriority: 0.9,
      },
      systemPrompt: "You are a careful assistant.",
      includeContext: "none",
      temperature: 0.2,
      maxTokens: 512,
      stopSequences: ["\n\nHuman:"],
      metadata: { traceId: "abc" },
    },
    ALL,
  ),
  req(
    "sampling/createMessage request (tool use)",
    "sampling/createMessage",
    {
      messages: [
        { role: "user", content: { type: "text", text: "What is the weather in Paris?" } },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "call-1", name: "get_weather", input: { city: "Paris" } }],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              toolUseId: "call-1",
              content: [{ type: "text", text: "18°C, cloudy" }],
              structuredContent: { celsius: 18, sky: "cloudy" },
            },
          ],
        },
      ],
      tools: [
        {
          name: "get_weather",
          description: "Current weather for a city",
          inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      ],
      toolChoice: { mode: "auto" },
      maxTokens: 1000,
    },
    ONLY_2025_11_25,
  ),
  req("roots/list request", "roots/list", undefined, ALL),
  req(
    "elicitation/create request (form, 2025-06-18 field kinds)",
    "elicitation/create",
    {
      message: "Please confirm the deployment details.",
      requestedSchema: {
        type: "object",
        properties: {
          email: { type: "string", title: "Email", format: "email", minLength: 3, maxLength: 200 },
          replicas: { type: "integer", title: "Replicas", minimum: 1, maximum: 10, default: 2 },
          confirm: { type: "boolean", title: "Confirm", default: false },
          region: { type: "string", enum: ["eu", "us"], enumNames: ["Europe", "United States"] },
        },
        required: ["email", "confirm"],
      },
    },
    SINCE_2025_06_18,
  ),
  req(
    "elicitation/create request (form, 2025-11-25 enum kinds)",
    "elicitation/create",
    {
      mode: "form",
      message: "Pick your options.",
      requestedSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          size: {
            type: "string",
            oneOf: [
              { const: "s", title: "Small" },
              { const: "l", title: "Large" },
            ],
            default: "s",
          },
          colour: { type: "string", enum: ["red", "blue"], default: "red" },
          tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, minItems: 1, maxItems: 2 },
          features: { type: "array", items: { anyOf: [{ const: "x", title: "Feature X" }] }, default: ["x"] },
          name: { type: "string", default: "anonymous" },
        },
      },
    },
    ONLY_2025_11_25,
  ),
  req(
    "elicitation/create request (url mode)",
    "elicitation/create",
    {
      mode: "url",
      message: "Sign in to connect your account.",
      elicitationId: "elic-7",
      url: "https://auth.example/connect?state=xyz",
    },
    ONLY_2025_11_25,
  ),
  req(
    "elicitation/create request (task-augmented)",
    "elicitation/create",
    {
      message: "Approve?",
      requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
      task: { ttl: 30000 },
    },
    SINCE_2025_06_18,
  ),
];
