/**
 * The v0.3 HTTP+JSON wire: the JSON mapping of the v0.3 *proto* (what the reference SDKs send and read on
 * `/v1/…`), which differs from the v0.3 JSON-RPC shapes. Close to v1.0's JSON: a message's parts are its
 * `content`, a file part nests `{ fileWithUri | fileWithBytes, mimeType }`, a data part nests `{ data }`,
 * the cancelled state is spelt `TASK_STATE_CANCELLED`, a status update carries `final`, and a push config
 * is named by its resource path.
 */
import {
  A2aError,
  type AgentCard,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskStatus,
} from "../../shared/types.ts";
import { cardToV03 } from "./card.ts";
import type { PushConfig } from "../push.ts";
import { endsStream } from "../task-entry.ts";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function partToProto(p: Part): Json {
  if (p.text !== undefined) return { text: p.text };
  if (p.raw !== undefined || p.url !== undefined)
    return {
      file: {
        ...(p.raw !== undefined ? { fileWithBytes: p.raw } : { fileWithUri: p.url }),
        ...(p.mediaType ? { mimeType: p.mediaType } : {}),
      },
    };
  return { data: { data: isObject(p.data) ? p.data : { value: p.data } } };
}

function partFromProto(p: unknown): Part {
  if (isObject(p) && typeof p.text === "string") return { text: p.text };
  if (isObject(p) && isObject(p.file)) {
    const mediaType = typeof p.file.mimeType === "string" && p.file.mimeType ? { mediaType: p.file.mimeType } : {};
    if (typeof p.file.fileWithBytes === "string") return { raw: p.file.fileWithBytes, ...mediaType };
    if (typeof p.file.fileWithUri === "string") return { url: p.file.fileWithUri, ...mediaType };
  }
  if (isObject(p) && isObject(p.data) && isObject(p.data.data)) return { data: p.data.data, mediaType: "application/json" };
  throw new A2aError("InvalidParams", "each part is {text}, {file:{fileWithUri|fileWithBytes}} or {data:{data}}");
}

/** A v1.0 message as v0.3 proto JSON. */
export function messageToProto(m: Message): Json {
  return {
    messageId: m.messageId,
    ...(m.contextId ? { contextId: m.contextId } : {}),
    ...(m.taskId ? { taskId: m.taskId } : {}),
    role: m.role,
    content: m.parts.map(partToProto),
    ...(m.metadata ? { metadata: m.metadata } : {}),
    ...(m.extensions?.length ? { extensions: m.extensions } : {}),
  };
}

/** A v0.3 proto JSON message as v1.0. */
export function messageFromProto(m: unknown): Message {
  if (!isObject(m)) throw new A2aError("InvalidParams", "message is required");
  if (!Array.isArray(m.content)) throw new A2aError("InvalidParams", "message.content must be an array");
  return {
    messageId: m.messageId as string,
    role: m.role as Message["role"],
    parts: m.content.map(partFromProto),
    ...(typeof m.contextId === "string" && m.contextId ? { contextId: m.contextId } : {}),
    ...(typeof m.taskId === "string" && m.taskId ? { taskId: m.taskId } : {}),
    ...(isObject(m.metadata) ? { metadata: m.metadata } : {}),
  };
}

const statusToProto = (s: TaskStatus): Json => ({
  state: s.state === "TASK_STATE_CANCELED" ? "TASK_STATE_CANCELLED" : s.state,
  ...(s.message ? { message: messageToProto(s.message) } : {}),
  ...(s.timestamp ? { timestamp: s.timestamp } : {}),
});

const artifactToProto = (a: Artifact): Json => ({
  artifactId: a.artifactId,
  ...(a.name ? { name: a.name } : {}),
  ...(a.description ? { description: a.description } : {}),
  parts: a.parts.map(partToProto),
  ...(a.metadata ? { metadata: a.metadata } : {}),
});

/** A v1.0 task as v0.3 proto JSON. */
export function taskToProto(t: Task): Json {
  return {
    id: t.id,
    contextId: t.contextId,
    status: statusToProto(t.status),
    ...(t.artifacts ? { artifacts: t.artifacts.map(artifactToProto) } : {}),
    ...(t.history ? { history: t.history.map(messageToProto) } : {}),
    ...(t.metadata ? { metadata: t.metadata } : {}),
  };
}

/** A v1.0 `StreamResponse` (or `SendMessageResponse`) as the v0.3 proto's. */
export function streamToProto(e: StreamResponse): Json {
  if ("task" in e) return { task: taskToProto(e.task) };
  if ("message" in e) return { message: messageToProto(e.message) };
  if ("statusUpdate" in e) {
    const u = e.statusUpdate;
    return {
      statusUpdate: { taskId: u.taskId, contextId: u.contextId, status: statusToProto(u.status), final: endsStream(u.status.state) },
    };
  }
  const u = e.artifactUpdate;
  return {
    artifactUpdate: {
      taskId: u.taskId,
      contextId: u.contextId,
      artifact: artifactToProto(u.artifact),
      ...(u.append ? { append: true } : {}),
      ...(u.lastChunk ? { lastChunk: true } : {}),
    },
  };
}

/** A push config as the v0.3 proto's `TaskPushNotificationConfig` (named by its resource path). */
export function pushConfigToProto(c: PushConfig): Json {
  const auth = c.authentication
    ? {
        authentication: {
          schemes: [c.authentication.scheme],
          ...(c.authentication.credentials ? { credentials: c.authentication.credentials } : {}),
        },
      }
    : {};
  return {
    name: `tasks/${c.taskId}/pushNotificationConfigs/${c.id}`,
    pushNotificationConfig: { id: c.id, url: c.url, ...(c.token ? { token: c.token } : {}), ...auth },
  };
}

/** The card as the v0.3 proto's `AgentCard`: the v0.3 card, with the security schemes and requirements in their proto (oneof) form. */
export function cardToProto(card: AgentCard): Json {
  const { securitySchemes: _schemes, security: _security, ...rest } = cardToV03(card);
  return { ...rest, ...(card.securitySchemes ? { securitySchemes: card.securitySchemes, security: card.securityRequirements ?? [] } : {}) };
}
