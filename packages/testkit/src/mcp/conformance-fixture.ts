/**
 * The server the official `@modelcontextprotocol/conformance` server scenarios expect: exactly the tools,
 * resources and prompts they call, answering what each scenario checks. Serve it over Streamable HTTP and
 * point the conformance CLI at it:
 *
 * ```ts
 * const fixture = createConformanceFixtureServer();
 * const http = await createStreamableHttpServer({ onsession: (t) => void fixture.connect(t) });
 * // bun node_modules/@modelcontextprotocol/conformance/dist/index.js server --url ${http.url} --suite all
 * ```
 */
import type { CallToolResult } from "@agentd/sdk/wire";
import type { ServerContext } from "@agentd/sdk/mcp";
import { createFakeMcpServer, type FakeMcpServer, type FakeMcpServerOptions } from "./fake-mcp-server.ts";
import { elicitationTools } from "./conformance-elicitation.ts";
import { RED_PIXEL_PNG, SILENT_WAV } from "./media.ts";
import type { FakeMcpServerSpec, FakeToolSpec } from "./types.ts";

const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });
const noArgs = { type: "object", properties: {} } as const;

/** Sleep that a cancellation cuts short. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

const TOOLS: FakeToolSpec[] = [
  {
    name: "test_simple_text",
    description: "Returns simple text content",
    inputSchema: noArgs,
    text: "This is a simple text response for testing.",
  },
  {
    name: "test_image_content",
    description: "Returns image content",
    inputSchema: noArgs,
    result: { content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }] },
  },
  {
    name: "test_audio_content",
    description: "Returns audio content",
    inputSchema: noArgs,
    result: { content: [{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }] },
  },
  {
    name: "test_embedded_resource",
    description: "Returns an embedded resource",
    inputSchema: noArgs,
    result: {
      content: [
        {
          type: "resource",
          resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
        },
      ],
    },
  },
  {
    name: "test_multiple_content_types",
    description: "Returns text, image and resource content",
    inputSchema: noArgs,
    result: {
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
        {
          type: "resource",
          resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' },
        },
      ],
    },
  },
  {
    name: "test_tool_with_logging",
    description: "Sends three info log messages while it runs",
    inputSchema: noArgs,
    handler: async (_args, ctx: ServerContext) => {
      await ctx.log("info", "Tool execution started");
      await pause(50, ctx.signal);
      await ctx.log("info", "Tool processing data");
      await pause(50, ctx.signal);
      await ctx.log("info", "Tool execution completed");
      return text("Tool with logging executed successfully");
    },
  },
  {
    name: "test_tool_with_progress",
    description: "Reports progress 0, 50, 100 of 100",
    inputSchema: noArgs,
    handler: async (_args, ctx: ServerContext) => {
      await ctx.sendProgress(0, 100);
      await pause(50, ctx.signal);
      await ctx.sendProgress(50, 100);
      await pause(50, ctx.signal);
      await ctx.sendProgress(100, 100);
      return text("Tool with progress executed successfully");
    },
  },
  {
    name: "test_error_handling",
    description: "Always fails",
    inputSchema: noArgs,
    text: "This tool intentionally returns an error for testing",
    isError: true,
  },
  {
    name: "test_sampling",
    description: "Asks the client's LLM to answer a prompt",
    inputSchema: {
      type: "object",
      properties: { prompt: { type: "string", description: "The prompt to send to the LLM" } },
      required: ["prompt"],
    },
    handler: async (args, ctx: ServerContext) => {
      if (!ctx.session.clientCapabilities.sampling) return { ...text("the client does not support sampling"), isError: true };
      const result = await ctx.sendRequest<{ content: { type: string; text?: string } }>("sampling/createMessage", {
        messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }],
        maxTokens: 100,
      });
      return text(`LLM response: ${result.content.type === "text" ? result.content.text : JSON.stringify(result.content)}`);
    },
  },
  ...elicitationTools(text),
  {
    name: "test_reconnection",
    description: "A short call for the SSE polling scenario (SEP-1699)",
    inputSchema: noArgs,
    handler: async (_args, ctx: ServerContext) => {
      await pause(100, ctx.signal);
      return text("Reconnection test completed");
    },
  },
  {
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
      additionalProperties: false,
    },
    handler: (args) => text(`Received: ${JSON.stringify(args)}`),
  },
];

const SPEC: FakeMcpServerSpec = {
  name: "agentd-conformance-fixture",
  version: "1.0.0",
  tools: TOOLS,
  resources: [
    {
      uri: "test://static-text",
      name: "static-text",
      description: "A static text resource",
      mimeType: "text/plain",
      text: "This is the content of the static text resource.",
    },
    {
      uri: "test://static-binary",
      name: "static-binary",
      description: "A static binary resource (PNG)",
      mimeType: "image/png",
      blob: RED_PIXEL_PNG,
    },
    {
      uri: "test://watched-resource",
      name: "watched-resource",
      description: "A resource to subscribe to",
      mimeType: "text/plain",
      text: "Watched resource content",
    },
  ],
  resourceTemplates: [
    {
      uriTemplate: "test://template/{id}/data",
      name: "template-data",
      description: "Data for an id",
      mimeType: "application/json",
      text: '{"id":"{{id}}","templateTest":true,"data":"Data for ID: {{id}}"}',
    },
  ],
  prompts: [
    {
      name: "test_simple_prompt",
      description: "A simple prompt without arguments",
      messages: [{ role: "user", text: "This is a simple prompt for testing." }],
    },
    {
      name: "test_prompt_with_arguments",
      description: "A prompt with two required arguments",
      arguments: [
        { name: "arg1", description: "First test argument", required: true },
        { name: "arg2", description: "Second test argument", required: true },
      ],
      messages: [{ role: "user", text: "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'" }],
      complete: { arg1: ["paris", "park", "party", "test", "testing"], arg2: ["world", "wonder"] },
    },
    {
      name: "test_prompt_with_embedded_resource",
      description: "A prompt that embeds a resource",
      arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
      get: (args) => ({
        messages: [
          {
            role: "user",
            content: {
              type: "resource",
              resource: {
                uri: args.resourceUri ?? "test://example-resource",
                mimeType: "text/plain",
                text: "Embedded resource content for testing.",
              },
            },
          },
          { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
        ],
      }),
    },
    {
      name: "test_prompt_with_image",
      description: "A prompt with an image",
      messages: [
        { role: "user", content: { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" } },
        { role: "user", text: "Please analyze the image above." },
      ],
    },
  ],
};

/** The fixture names, by kind (what the conformance scenarios call). */
export const CONFORMANCE_FIXTURES = {
  tools: TOOLS.map((t) => t.name),
  resources: ["test://static-text", "test://static-binary", "test://template/{id}/data", "test://watched-resource"],
  prompts: (SPEC.prompts ?? []).map((p) => p.name),
} as const;

/** A fresh conformance fixture server (completion, logging and subscriptions on). */
export function createConformanceFixtureServer(options: FakeMcpServerOptions = {}): FakeMcpServer {
  return createFakeMcpServer(SPEC, options);
}
