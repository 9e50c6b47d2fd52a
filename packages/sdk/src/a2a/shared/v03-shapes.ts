/**
 * The A2A v0.3 JSON shapes (the v0.3 JSON Schema: `kind` discriminators, lower-case states, `role:
 * "user"`, file parts holding a `file` object) and their translation to and from the v1.0 shapes the
 * service speaks — the server's v0.3 edge and the client's v0.3 binding both use it. Pure data mapping,
 * both directions side by side, so a field is never renamed on one side only.
 */
import {
  A2aError,
  INTERRUPTED_STATES,
  TERMINAL_STATES,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskState,
  type TaskStatus,
} from "./types.ts";

/** A v1.0 `TaskPushNotificationConfig` as JSON (what the server's push store holds). */
interface PushConfig {
  id: string;
  taskId: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

/** A status update with one of these states is the last of its stream (v0.3's `final`). */
const endsStream = (s: TaskState) => TERMINAL_STATES.has(s) || INTERRUPTED_STATES.has(s);

type Json = Record<string, unknown>;

/** v1.0 `TaskState` → v0.3 `TaskState`. */
const STATE_V03: Record<TaskState, string> = {
  TASK_STATE_SUBMITTED: "submitted",
  TASK_STATE_WORKING: "working",
  TASK_STATE_COMPLETED: "completed",
  TASK_STATE_FAILED: "failed",
  TASK_STATE_CANCELED: "canceled",
  TASK_STATE_INPUT_REQUIRED: "input-required",
  TASK_STATE_REJECTED: "rejected",
  TASK_STATE_AUTH_REQUIRED: "auth-required",
};

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const opt = <K extends string>(key: K, value: unknown): Partial<Record<K, unknown>> =>
  value === undefined || value === "" ? {} : ({ [key]: value } as Record<K, unknown>);

/** A v1.0 state as v0.3 spells it. */
export const stateToV03 = (s: TaskState): string => STATE_V03[s];

const STATE_V1 = Object.fromEntries(Object.entries(STATE_V03).map(([v1, v03]) => [v03, v1])) as Record<string, TaskState>;

/** A v0.3 state as v1.0 (`unknown` and anything else: InvalidParams). */
export function stateFromV03(s: unknown): TaskState {
  const state = typeof s === "string" ? STATE_V1[s] : undefined;
  if (!state) throw new A2aError("InvalidParams", `unknown v0.3 task state ${JSON.stringify(s)}`);
  return state;
}

/** A v1.0 part as a v0.3 `TextPart`, `FilePart` or `DataPart` (v0.3 data must be an object: others go as JSON text). */
export function partToV03(p: Part): Json {
  const meta = opt("metadata", p.metadata);
  if (p.text !== undefined) return { kind: "text", text: p.text, ...meta };
  if (p.raw !== undefined || p.url !== undefined) {
    const file = {
      ...(p.raw !== undefined ? { bytes: p.raw } : { uri: p.url }),
      ...opt("name", p.filename),
      ...opt("mimeType", p.mediaType),
    };
    return { kind: "file", file, ...meta };
  }
  if (isObject(p.data)) return { kind: "data", data: p.data, ...meta };
  return { kind: "text", text: JSON.stringify(p.data ?? null), ...meta };
}

/** A v0.3 part as v1.0 (InvalidParams when it is none of the three kinds). */
export function partFromV03(p: unknown): Part {
  if (!isObject(p)) throw new A2aError("InvalidParams", "each part must be an object");
  const meta = isObject(p.metadata) ? { metadata: p.metadata } : {};
  if (p.kind === "text" && typeof p.text === "string") return { text: p.text, ...meta };
  if (p.kind === "data" && isObject(p.data)) return { data: p.data, mediaType: "application/json", ...meta };
  if (p.kind === "file" && isObject(p.file)) {
    const f = p.file;
    const named = {
      ...(typeof f.name === "string" ? { filename: f.name } : {}),
      ...(typeof f.mimeType === "string" ? { mediaType: f.mimeType } : {}),
    };
    if (typeof f.bytes === "string") return { raw: f.bytes, ...named, ...meta };
    if (typeof f.uri === "string") return { url: f.uri, ...named, ...meta };
  }
  throw new A2aError("InvalidParams", 'each part is {kind:"text",text}, {kind:"file",file:{bytes|uri}} or {kind:"data",data:{…}}');
}

/** A v1.0 message as v0.3. */
export function messageToV03(m: Message): Json {
  return {
    kind: "message",
    messageId: m.messageId,
    role: m.role === "ROLE_AGENT" ? "agent" : "user",
    parts: m.parts.map(partToV03),
    ...opt("contextId", m.contextId),
    ...opt("taskId", m.taskId),
    ...opt("metadata", m.metadata),
    ...(m.extensions?.length ? { extensions: m.extensions } : {}),
    ...(m.referenceTaskIds?.length ? { referenceTaskIds: m.referenceTaskIds } : {}),
  };
}

/** A v0.3 message as v1.0 (the service checks the rest, e.g. that the role is the user's). */
export function messageFromV03(m: unknown): Message {
  if (!isObject(m)) throw new A2aError("InvalidParams", "params.message is required");
  if (!Array.isArray(m.parts)) throw new A2aError("InvalidParams", "message.parts must be an array");
  const role = m.role === "user" ? "ROLE_USER" : m.role === "agent" ? "ROLE_AGENT" : undefined;
  if (!role) throw new A2aError("InvalidParams", 'message.role must be "user"');
  return {
    messageId: m.messageId as string,
    role,
    parts: m.parts.map(partFromV03),
    ...(m.contextId !== undefined ? { contextId: m.contextId as string } : {}),
    ...(m.taskId !== undefined ? { taskId: m.taskId as string } : {}),
    ...(isObject(m.metadata) ? { metadata: m.metadata } : {}),
    ...(Array.isArray(m.extensions) ? { extensions: m.extensions as string[] } : {}),
    ...(Array.isArray(m.referenceTaskIds) ? { referenceTaskIds: m.referenceTaskIds as string[] } : {}),
  };
}

/** A v1.0 status as v0.3. */
export const statusToV03 = (s: TaskStatus): Json => ({
  state: stateToV03(s.state),
  ...(s.message ? { message: messageToV03(s.message) } : {}),
  ...opt("timestamp", s.timestamp),
});

/** A v1.0 artifact as v0.3. */
export const artifactToV03 = (a: Artifact): Json => ({
  artifactId: a.artifactId,
  parts: a.parts.map(partToV03),
  ...opt("name", a.name),
  ...opt("description", a.description),
  ...opt("metadata", a.metadata),
});

/** A v1.0 task as v0.3. */
export function taskToV03(t: Task): Json {
  return {
    kind: "task",
    id: t.id,
    contextId: t.contextId,
    status: statusToV03(t.status),
    ...(t.artifacts ? { artifacts: t.artifacts.map(artifactToV03) } : {}),
    ...(t.history ? { history: t.history.map(messageToV03) } : {}),
    ...opt("metadata", t.metadata),
  };
}

/** A v1.0 `StreamResponse` as the v0.3 event it wraps (`final` set on the event that ends the stream). */
export function eventToV03(e: StreamResponse): Json {
  if ("task" in e) return taskToV03(e.task);
  if ("message" in e) return messageToV03(e.message);
  if ("statusUpdate" in e) {
    const u = e.statusUpdate;
    return {
      kind: "status-update",
      taskId: u.taskId,
      contextId: u.contextId,
      status: statusToV03(u.status),
      final: endsStream(u.status.state),
      ...opt("metadata", u.metadata),
    };
  }
  const u = e.artifactUpdate;
  return {
    kind: "artifact-update",
    taskId: u.taskId,
    contextId: u.contextId,
    artifact: artifactToV03(u.artifact),
    ...opt("append", u.append),
    ...opt("lastChunk", u.lastChunk),
  };
}

/** A v1.0 `SendMessageResponse` (`{task}` or `{message}`) as the v0.3 result: the task or message itself. */
export const sendResultToV03 = (r: unknown): Json =>
  isObject(r) && isObject(r.message) ? messageToV03(r.message as unknown as Message) : taskToV03((r as { task: Task }).task);

/** A push config as v0.3's `TaskPushNotificationConfig` (`authentication.schemes` is a list there). */
export function pushConfigToV03(c: PushConfig): Json {
  const auth = c.authentication
    ? { authentication: { schemes: [c.authentication.scheme], ...opt("credentials", c.authentication.credentials) } }
    : {};
  return { taskId: c.taskId, pushNotificationConfig: { id: c.id, url: c.url, ...opt("token", c.token), ...auth } };
}

/** v0.3's `PushNotificationConfig` as the v1.0 config fields the push store takes. */
export function pushConfigFromV03(c: unknown): Json {
  if (!isObject(c)) throw new A2aError("InvalidParams", "pushNotificationConfig must be an object");
  const auth = isObject(c.authentication) ? c.authentication : undefined;
  const scheme = Array.isArray(auth?.schemes) ? auth.schemes[0] : undefined;
  return {
    url: c.url,
    ...opt("id", c.id),
    ...opt("token", c.token),
    ...(auth
      ? { authentication: { scheme: typeof scheme === "string" ? scheme : "Bearer", ...opt("credentials", auth.credentials) } }
      : {}),
  };
}

/** A v0.3 status as v1.0. */
export function statusFromV03(s: unknown): TaskStatus {
  if (!isObject(s)) throw new A2aError("InvalidParams", "status must be an object");
  return {
    state: stateFromV03(s.state),
    ...(s.message !== undefined ? { message: messageFromV03(s.message) } : {}),
    ...(typeof s.timestamp === "string" ? { timestamp: s.timestamp } : {}),
  };
}

/** A v0.3 artifact as v1.0. */
export function artifactFromV03(a: unknown): Artifact {
  if (!isObject(a) || typeof a.artifactId !== "string" || !Array.isArray(a.parts))
    throw new A2aError("InvalidParams", "an artifact has an artifactId and parts");
  return {
    artifactId: a.artifactId,
    parts: a.parts.map(partFromV03),
    ...(typeof a.name === "string" ? { name: a.name } : {}),
    ...(typeof a.description === "string" ? { description: a.description } : {}),
    ...(isObject(a.metadata) ? { metadata: a.metadata } : {}),
  };
}

/** A v0.3 task as v1.0. */
export function taskFromV03(t: unknown): Task {
  if (!isObject(t) || typeof t.id !== "string" || typeof t.contextId !== "string")
    throw new A2aError("InvalidParams", "a task has an id and a contextId");
  return {
    id: t.id,
    contextId: t.contextId,
    status: statusFromV03(t.status),
    ...(Array.isArray(t.artifacts) ? { artifacts: t.artifacts.map(artifactFromV03) } : {}),
    ...(Array.isArray(t.history) ? { history: t.history.map(messageFromV03) } : {}),
    ...(isObject(t.metadata) ? { metadata: t.metadata } : {}),
  };
}

/** A v0.3 event (`kind` task, message, status-update or artifact-update) as a v1.0 `StreamResponse`. */
export function eventFromV03(e: unknown): StreamResponse {
  const kind = isObject(e) ? e.kind : undefined;
  if (kind === "task") return { task: taskFromV03(e) };
  if (kind === "message") return { message: messageFromV03(e) };
  if (isObject(e) && kind === "status-update")
    return {
      statusUpdate: {
        taskId: String(e.taskId),
        contextId: String(e.contextId),
        status: statusFromV03(e.status),
        ...(isObject(e.metadata) ? { metadata: e.metadata } : {}),
      },
    };
  if (isObject(e) && kind === "artifact-update")
    return {
      artifactUpdate: {
        taskId: String(e.taskId),
        contextId: String(e.contextId),
        artifact: artifactFromV03(e.artifact),
        ...(e.append === true ? { append: true } : {}),
        ...(e.lastChunk === true ? { lastChunk: true } : {}),
      },
    };
  throw new A2aError("InvalidParams", `not a v0.3 event (kind ${JSON.stringify(kind)})`);
}
