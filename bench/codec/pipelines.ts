/**
 * The codec pipelines compared: one message in as JSON text, validated as a server or client would before a
 * handler runs, and out again as an NDJSON frame.
 *
 * - floor: `JSON.parse` + `JSON.stringify` (no validation at all);
 * - agentd: `JSON.parse`, `classify` (envelope), the revision codec's per-method check (its allocation-free
 *   `check…` form), `encodeNdjson`;
 * - official SDK 1.32.2: what its stdio transport and `Protocol` do — `JSONRPCMessageSchema.parse` of the
 *   parsed value (the envelope), then the method's own schema (`CallToolRequestSchema` before a request
 *   handler, `CallToolResultSchema` on a result, the notification's schema), then `serializeMessage`;
 * - v2 SDK 2.4.0: the same with its `deserializeMessage` and `specTypeSchemas`.
 */
// The codec and framing are internal to the SDK (not on `@agentd/sdk/wire`): measured from its source.
import { classify } from "../../packages/sdk/src/wire/jsonrpc.ts";
import { encodeNdjson } from "../../packages/sdk/src/wire/ndjson.ts";
import { getCodec } from "../../packages/sdk/src/wire/codecs.ts";
import * as v1 from "@modelcontextprotocol/sdk/types.js";
import { serializeMessage as v1Serialize } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { deserializeMessage as v2Deserialize, serializeMessage as v2Serialize, specTypeSchemas } from "@modelcontextprotocol/server";
import type { CodecMessage } from "./corpus.ts";

/** One pipeline: message text in, NDJSON frame out. Throws when the message is refused. */
export type Pipeline = (m: CodecMessage) => string;

export const floor: Pipeline = (m) => `${JSON.stringify(JSON.parse(m.text))}\n`;

const codecHandshake = getCodec("2025-11-25");
const statelessCodec = getCodec("2026-07-28");

/** agentd's pipeline, with the codec of the message's revision (2026-07-28 for the modern group). */
export const agentd: Pipeline = (m) => {
  const codec = m.revision === "2026-07-28" ? statelessCodec : codecHandshake;
  const value: unknown = JSON.parse(m.text);
  const k = classify(value);
  // The allocation-free check forms: a valid message is the parsed value itself, nothing is wrapped.
  const failure =
    k.kind === "request"
      ? codec.checkRequestParams(k.message.method, k.message.params)
      : k.kind === "notification"
        ? codec.checkNotificationParams(k.message.method, k.message.params)
        : k.kind === "result"
          ? codec.checkResult(m.method, k.message.result)
          : { message: k.kind };
  if (failure !== undefined) throw new Error(`agentd refused ${m.name}: ${failure.message}`);
  return encodeNdjson(value);
};

type Zod = { parse(v: unknown): unknown };
const V1_REQUESTS: Record<string, Zod> = { "tools/call": v1.CallToolRequestSchema };
const V1_RESULTS: Record<string, Zod> = {
  "tools/call": v1.CallToolResultSchema,
  "tools/list": v1.ListToolsResultSchema,
  "resources/list": v1.ListResourcesResultSchema,
};
const V1_NOTIFICATIONS: Record<string, Zod> = {
  "notifications/progress": v1.ProgressNotificationSchema,
  "notifications/message": v1.LoggingMessageNotificationSchema,
  "notifications/initialized": v1.InitializedNotificationSchema,
  "notifications/cancelled": v1.CancelledNotificationSchema,
};

export const sdkV1: Pipeline = (m) => {
  const message = v1.JSONRPCMessageSchema.parse(JSON.parse(m.text)) as Record<string, unknown>;
  if (m.kind === "result") (V1_RESULTS[m.method] as Zod).parse(message.result);
  else ((m.kind === "request" ? V1_REQUESTS : V1_NOTIFICATIONS)[m.method] as Zod).parse(message);
  return v1Serialize(message as never);
};

type Standard = { "~standard": { validate(v: unknown): { issues?: unknown } | Promise<unknown> } };
const spec = specTypeSchemas as unknown as Record<string, Standard>;
const V2_NAMES: Record<string, string> = {
  "tools/call": "CallTool",
  "tools/list": "ListTools",
  "resources/list": "ListResources",
  "notifications/progress": "ProgressNotification",
  "notifications/message": "LoggingMessageNotification",
  "notifications/initialized": "InitializedNotification",
  "notifications/cancelled": "CancelledNotification",
};

export const sdkV2: Pipeline = (m) => {
  const message = v2Deserialize(m.text) as unknown as Record<string, unknown>;
  const base = V2_NAMES[m.method] as string;
  const name = m.kind === "request" ? `${base}Request` : m.kind === "result" ? `${base}Result` : base;
  const r = (spec[name] as Standard)["~standard"].validate(m.kind === "result" ? message.result : message);
  if (r instanceof Promise || (r as { issues?: unknown }).issues) throw new Error(`v2 SDK refused ${m.name}`);
  return v2Serialize(message as never);
};

/** The pipelines in report order: the floor first, then ours, then the peers. */
export const PIPELINES: Array<{ id: string; subject: string; run: Pipeline }> = [
  { id: "floor", subject: "floor: JSON.parse + JSON.stringify", run: floor },
  { id: "ours", subject: "agentd (classify + codec)", run: agentd },
  { id: "sdk", subject: "official SDK 1.32.2 (zod schemas)", run: sdkV1 },
  { id: "sdk2", subject: "v2 SDK 2.4.0 (zod schemas)", run: sdkV2 },
];
