/**
 * The A2A v1.0 shapes agentd's client reads and writes, in their ProtoJSON form (camelCase fields, enum
 * names such as `TASK_STATE_WORKING`, `Part` as a `text` / `raw` / `url` / `data` oneof). Source of truth:
 * `a2a.proto` of A2A v1.0. Responses are checked leniently (valibot `looseObject`): a peer may add fields,
 * but a reply without the fields we act on (a task's id and state, a message's parts) is refused.
 */
import * as v from "valibot";

import { INTERRUPTED_STATES as INTERRUPTED, TERMINAL_STATES as TERMINAL } from "../shared/types.ts";

/** `TaskState` names of A2A v1.0 (one definition, shared with agentd's A2A server). */
export type { TaskState } from "../shared/types.ts";

/** States after which the task never changes again. */
export const TERMINAL_STATES: ReadonlySet<string> = TERMINAL;
/** States in which the task waits for the client (a follow-up message, or authorization). */
export const INTERRUPTED_STATES: ReadonlySet<string> = INTERRUPTED;

const metadata = v.optional(v.record(v.string(), v.unknown()));

/** One content part: exactly one of `text`, `raw` (base64), `url`, `data`. */
export const PartSchema = v.looseObject({
  text: v.optional(v.string()),
  raw: v.optional(v.string()),
  url: v.optional(v.string()),
  data: v.optional(v.unknown()),
  filename: v.optional(v.string()),
  mediaType: v.optional(v.string()),
  metadata,
});
/** A content part. */
export type Part = v.InferOutput<typeof PartSchema>;

/** A message between client (`ROLE_USER`) and agent (`ROLE_AGENT`). */
export const MessageSchema = v.looseObject({
  messageId: v.string(),
  contextId: v.optional(v.string()),
  taskId: v.optional(v.string()),
  role: v.string(),
  parts: v.array(PartSchema),
  metadata,
  referenceTaskIds: v.optional(v.array(v.string())),
});
/** An A2A message. */
export type Message = v.InferOutput<typeof MessageSchema>;

/** A task's status: its state and the agent's last word about it. */
export const TaskStatusSchema = v.looseObject({ state: v.string(), message: v.optional(MessageSchema), timestamp: v.optional(v.string()) });
/** A task status. */
export type TaskStatus = v.InferOutput<typeof TaskStatusSchema>;

/** An output of a task. */
export const ArtifactSchema = v.looseObject({
  artifactId: v.string(),
  name: v.optional(v.string()),
  description: v.optional(v.string()),
  parts: v.array(PartSchema),
  metadata,
});
/** A task output. */
export type Artifact = v.InferOutput<typeof ArtifactSchema>;

/** A unit of work on the remote agent. */
export const TaskSchema = v.looseObject({
  id: v.string(),
  contextId: v.optional(v.string()),
  status: TaskStatusSchema,
  artifacts: v.optional(v.array(ArtifactSchema)),
  history: v.optional(v.array(MessageSchema)),
  metadata,
});
/** An A2A task. */
export type Task = v.InferOutput<typeof TaskSchema>;

/** A status change of a streamed task. */
export const TaskStatusUpdateEventSchema = v.looseObject({
  taskId: v.string(),
  contextId: v.optional(v.string()),
  status: TaskStatusSchema,
  metadata,
});
/** An artifact (or a chunk of one) of a streamed task. */
export const TaskArtifactUpdateEventSchema = v.looseObject({
  taskId: v.string(),
  contextId: v.optional(v.string()),
  artifact: ArtifactSchema,
  append: v.optional(v.boolean()),
  lastChunk: v.optional(v.boolean()),
  metadata,
});
/** A streamed status change. */
export type TaskStatusUpdateEvent = v.InferOutput<typeof TaskStatusUpdateEventSchema>;
/** A streamed artifact. */
export type TaskArtifactUpdateEvent = v.InferOutput<typeof TaskArtifactUpdateEventSchema>;

/** `SendMessageResponse`: a task, or a direct message (the agent answered without a task). */
export const SendMessageResponseSchema = v.union([v.looseObject({ task: TaskSchema }), v.looseObject({ message: MessageSchema })]);
/** What a blocking send returns. */
export type SendMessageResponse = { task: Task; message?: undefined } | { message: Message; task?: undefined };

/** `StreamResponse`: one event of a streamed send. */
export const StreamResponseSchema = v.union([
  v.looseObject({ task: TaskSchema }),
  v.looseObject({ message: MessageSchema }),
  v.looseObject({ statusUpdate: TaskStatusUpdateEventSchema }),
  v.looseObject({ artifactUpdate: TaskArtifactUpdateEventSchema }),
]);
/** One streamed event, by its oneof case. */
export type StreamResponse =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

/** `SendMessageRequest` as the client writes it. */
export interface SendMessageRequest {
  message: Message;
  configuration?: {
    acceptedOutputModes?: string[];
    historyLength?: number;
    returnImmediately?: boolean;
    /** A webhook for the task's events (its `url` and the `token` the agent sends back). */
    taskPushNotificationConfig?: { url: string; token?: string };
  };
  metadata?: Record<string, unknown>;
  tenant?: string;
}
