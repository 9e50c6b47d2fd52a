/**
 * Fake LLM gateways: real HTTP servers on 127.0.0.1 that speak the OpenAI-compatible chat completions,
 * OpenAI Responses, Anthropic Messages and Gemini generateContent dialects, answer from a script turn by turn, record every
 * request (credentials redacted) and inject faults (429, 5xx, malformed chunks, stalls, disconnects).
 * They serve reasoning (signed thinking blocks, thought signatures, `reasoning_content`) and check it comes
 * back as the real APIs require, and report cache usage from a prompt-cache model of their own.
 *
 * ```ts
 * const gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "hello" }] });
 * // point a client at gateway.url, then assert on gateway.requests
 * await gateway.close();
 * ```
 */
export type {
  Dialect,
  DisconnectFault,
  EchoHeadersTurn,
  DynamicTurn,
  FakeGateway,
  FakeGatewayOptions,
  FaultTurn,
  MalformedChunkFault,
  NormalizedMessage,
  NormalizedToolCall,
  NormalizedToolResult,
  RateLimitFault,
  RecordedRequest,
  ServerErrorFault,
  StallFault,
  StaticTurn,
  TextTurn,
  ToolCallSpec,
  ToolCallsTurn,
  Turn,
  TurnReasoning,
  TurnUsage,
} from "./types.ts";
export { startFakeGateway } from "./fake-gateway.ts";
export { echoLastToolResult, isTurn, textOf, textTurn, toolCallTurn } from "./turns.ts";
export { loadGatewayOptions } from "./load-script.ts";
