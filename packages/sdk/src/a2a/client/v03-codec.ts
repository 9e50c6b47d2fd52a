/**
 * Speaking A2A v0.3 to an agent whose card offers only v0.3 (JSON-RPC): the client's v1.0 calls are renamed
 * (`SendMessage` → `message/send`, …), their params written in the v0.3 shapes, and the answers read back
 * into v1.0 shapes — with the same converters the server's v0.3 edge uses — so the rest of the client and
 * the tools never see a difference.
 */
import type { Message } from "../shared/types.ts";
import { eventFromV03, messageFromV03, messageToV03, taskFromV03 } from "../shared/v03-shapes.ts";
import type { A2aMethod } from "./bindings.ts";

/** How a JSON-RPC binding renames, rewrites and reads back one protocol version. */
export interface JsonRpcCodec {
  /** The `A2A-Version` header value. */
  version: string;
  method(m: A2aMethod): string;
  params(m: A2aMethod, p: Record<string, unknown>): Record<string, unknown>;
  /** The v1.0 result (or stream event) for the answer; throws on a malformed one. */
  result(m: A2aMethod, r: unknown): unknown;
}

const NAMES: Record<A2aMethod, string> = {
  SendMessage: "message/send",
  SendStreamingMessage: "message/stream",
  GetTask: "tasks/get",
  CancelTask: "tasks/cancel",
  SubscribeToTask: "tasks/resubscribe",
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function sendParams(p: Record<string, unknown>): Record<string, unknown> {
  const c = isObject(p.configuration) ? p.configuration : {};
  const push = isObject(c.taskPushNotificationConfig) ? c.taskPushNotificationConfig : undefined;
  const configuration = {
    // v0.3 servers differ on the default: say it either way.
    blocking: c.returnImmediately !== true,
    ...(typeof c.historyLength === "number" ? { historyLength: c.historyLength } : {}),
    ...(Array.isArray(c.acceptedOutputModes) ? { acceptedOutputModes: c.acceptedOutputModes } : {}),
    ...(push ? { pushNotificationConfig: { url: push.url, ...(typeof push.token === "string" ? { token: push.token } : {}) } } : {}),
  };
  return { message: messageToV03(p.message as Message), configuration, ...(isObject(p.metadata) ? { metadata: p.metadata } : {}) };
}

/** A2A v0.3 over JSON-RPC. */
export const V03_CODEC: JsonRpcCodec = {
  version: "0.3",
  method: (m) => NAMES[m],
  params: (m, p) => (m === "SendMessage" || m === "SendStreamingMessage" ? sendParams(p) : p),
  result(m, r) {
    if (m === "SendStreamingMessage" || m === "SubscribeToTask") return eventFromV03(r);
    if (m === "SendMessage") return isObject(r) && r.kind === "message" ? { message: messageFromV03(r) } : { task: taskFromV03(r) };
    return taskFromV03(r);
  },
};
