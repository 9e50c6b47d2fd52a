/**
 * The A2A v1.0 operations, independent of the binding (JSON-RPC or HTTP+JSON): each takes the caller's
 * principal and the request's JSON params, checks them, and answers a value, or a stream of
 * `StreamResponse` for the streaming operations. Errors are {@link A2aError}s, rendered by the binding.
 */
import {
  A2aError,
  TERMINAL_STATES,
  type AgentCard,
  type Message,
  type StreamResponse,
  type Task,
  type TaskState,
} from "../shared/types.ts";
import type { Principal } from "../../serve/principal.ts";
import { callOperator, OPERATOR_METHODS, type OperatorSurface } from "./operator.ts";
import type { PushConfigs } from "./push.ts";
import type { A2aTasks } from "./tasks.ts";
import { endsStream } from "./task-entry.ts";
import { admitContext, namesContext } from "./contexts.ts";
import type { ServedConversations } from "../../serve/served-conversations.ts";

/** A stream of events: the first is ready at once; it ends when the task ends or is interrupted. */
export type EventStream = AsyncIterable<StreamResponse>;

/** What the bindings call. */
export interface A2aService {
  /** Unary operations by v1.0 method name. */
  call(method: string, params: Record<string, unknown>, principal: Principal): Promise<unknown>;
  /** Streaming operations (`SendStreamingMessage`, `SubscribeToTask`). */
  stream(method: string, params: Record<string, unknown>, principal: Principal): EventStream;
  /** Whether `method` streams. */
  streams(method: string): boolean;
}

const TASK_STATES = new Set<TaskState>([
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_REJECTED",
  "TASK_STATE_AUTH_REQUIRED",
]);

/**
 * Build the service over a task store; `extendedCard` answers GetExtendedAgentCard; `conversations` are what
 * a `contextId` names (contexts.ts: another principal's is refused).
 */
export function createA2aService(
  tasks: A2aTasks,
  push: PushConfigs,
  extendedCard: (principal?: Principal) => AgentCard,
  operator?: OperatorSurface,
  conversations?: ServedConversations,
): A2aService {
  const unary: Record<string, (p: Record<string, unknown>, who: Principal) => Promise<unknown>> = {
    async SendMessage(p, who) {
      const message = messageOf(p);
      const config = (isObject(p.configuration) ? p.configuration : {}) as Record<string, unknown>;
      const start = pushOnStart(push, p, who);
      await admitContext(conversations, tasks, who.id, message);
      if (message.taskId) await tasks.load(who, message.taskId);
      const entry = tasks.send(who, message, start);
      // An operator's answer may be on another principal's task: follow it as its owner's.
      if (config.returnImmediately !== true) await settled(tasks, entry.owner, entry.task);
      return { task: view(entry.task, historyLength(config.historyLength)) };
    },
    async GetTask(p, who) {
      await tasks.load(who, idOf(p));
      return view(tasks.get(who.id, idOf(p)).task, historyLength(p.historyLength));
    },
    async ListTasks(p, who) {
      return listTasks(tasks, p, who);
    },
    async CancelTask(p, who) {
      await tasks.load(who, idOf(p));
      return view(tasks.cancel(who.id, idOf(p)));
    },
    async GetExtendedAgentCard(_p, who) {
      return extendedCard(who);
    },
    async CreateTaskPushNotificationConfig(p, who) {
      const taskId = taskIdOf(p);
      tasks.get(who.id, taskId);
      // v1.0 sends the config's fields at the top level; earlier drafts nested them under `config`.
      const fields = isObject(p.config) ? { ...p.config } : p;
      return push.create(who.id, taskId, fields);
    },
    async GetTaskPushNotificationConfig(p, who) {
      tasks.get(who.id, taskIdOf(p));
      return push.get(who.id, taskIdOf(p), idOf(p));
    },
    async ListTaskPushNotificationConfigs(p, who) {
      tasks.get(who.id, taskIdOf(p));
      return { configs: push.list(who.id, taskIdOf(p)), nextPageToken: "" };
    },
    async DeleteTaskPushNotificationConfig(p, who) {
      tasks.get(who.id, taskIdOf(p));
      push.delete(who.id, taskIdOf(p), idOf(p));
      return {};
    },
  };

  return {
    streams: (m) => m === "SendStreamingMessage" || m === "SubscribeToTask",
    async call(method, params, who) {
      if (operator && OPERATOR_METHODS.has(method)) return callOperator(operator, method, params, who);
      const op = Object.hasOwn(unary, method) ? unary[method] : undefined;
      if (!op) throw new A2aError("MethodNotFound", `method ${method} not found`);
      return op(params, who);
    },
    stream(method, params, who) {
      if (method === "SendStreamingMessage") {
        const message = messageOf(params);
        const start = pushOnStart(push, params, who);
        if (!namesContext(message) && (!message.taskId || tasks.holds(who, message.taskId))) {
          const entry = tasks.send(who, message, start);
          return follow(tasks, entry.owner, entry.task);
        }
        // A named context is admitted (a store read) before its task starts: a refusal is the stream's one error event.
        return (async function* () {
          await admitContext(conversations, tasks, who.id, message);
          // A task held before a restart, whose run waits saved, is found again (task-durable-wait.ts).
          if (message.taskId) await tasks.load(who, message.taskId);
          const entry = tasks.send(who, message, start);
          yield* follow(tasks, entry.owner, entry.task);
        })();
      }
      const subscribe = () => {
        const task = tasks.get(who.id, idOf(params)).task;
        // Only a terminal task refuses a subscription: one waiting for input is followed through its answer.
        if (TERMINAL_STATES.has(task.status.state))
          throw new A2aError("UnsupportedOperation", `task ${task.id} is no longer running: read it with GetTask`);
        return follow(tasks, who.id, task, true);
      };
      if (tasks.holds(who, idOf(params))) return subscribe();
      // A task held before a restart is looked for in the store first: not found is then the stream's one error event.
      return (async function* () {
        await tasks.load(who, idOf(params));
        yield* subscribe();
      })();
    },
  };
}

/** A push config given with the message is checked before the task starts and registered before its first event. */
function pushOnStart(push: PushConfigs, p: Record<string, unknown>, who: Principal): ((task: Task) => void) | undefined {
  const config = isObject(p.configuration) ? p.configuration : {};
  const pc = config.taskPushNotificationConfig;
  if (pc === undefined || pc === null) return undefined;
  if (!isObject(pc)) throw new A2aError("InvalidParams", "configuration.taskPushNotificationConfig must be an object");
  push.checkUrl(pc.url);
  return (task: Task) => void push.create(who.id, task.id, pc);
}

/** ListTasks: the caller's tasks filtered by context, state and status time, a page at a time (the token is an offset). */
function listTasks(tasks: A2aTasks, p: Record<string, unknown>, who: Principal): Record<string, unknown> {
  const pageSize = intParam(p.pageSize, "pageSize", 1, 100) ?? 50;
  const offset = p.pageToken ? pageOffset(p.pageToken) : 0;
  if (p.status !== undefined && !TASK_STATES.has(p.status as TaskState))
    throw new A2aError("InvalidParams", `status must be one of ${[...TASK_STATES].join(", ")}`);
  const after = typeof p.statusTimestampAfter === "string" ? Date.parse(p.statusTimestampAfter) : undefined;
  if (after !== undefined && Number.isNaN(after)) throw new A2aError("InvalidParams", "statusTimestampAfter must be an RFC 3339 timestamp");
  const all = tasks
    .list(who.id)
    .filter(
      (t) =>
        (!p.contextId || t.contextId === p.contextId) &&
        (!p.status || t.status.state === p.status) &&
        (after === undefined || Date.parse(t.status.timestamp ?? "") > after),
    );
  const page = all.slice(offset, offset + pageSize);
  const history = historyLength(p.historyLength) ?? 0;
  const next = offset + pageSize < all.length ? Buffer.from(String(offset + pageSize)).toString("base64url") : "";
  return {
    tasks: page.map((t) => view(t, history, p.includeArtifacts === true)),
    nextPageToken: next,
    pageSize,
    totalSize: all.length,
  };
}

/**
 * The task snapshot, then every event until the task ends or waits for input (`resume`: a subscription to a
 * task already waiting for input follows it through the answer, until it ends or waits again).
 */
async function* follow(tasks: A2aTasks, owner: string, task: Task, resume = false): EventStream {
  const queue: StreamResponse[] = [];
  let wake: (() => void) | undefined;
  const off = tasks.subscribe(owner, task.id, (e) => {
    queue.push(e);
    wake?.();
  });
  try {
    yield { task: view(task) };
    if (resume ? TERMINAL_STATES.has(task.status.state) : endsStream(task.status.state)) return;
    for (;;) {
      while (queue.length === 0) await new Promise<void>((r) => (wake = r));
      const e = queue.shift()!;
      yield e;
      if ("statusUpdate" in e && endsStream(e.statusUpdate.status.state)) return;
    }
  } finally {
    off();
  }
}

/** Resolve when the task ends or waits for input. */
function settled(tasks: A2aTasks, owner: string, task: Task): Promise<void> {
  if (endsStream(task.status.state)) return Promise.resolve();
  return new Promise((resolve) => {
    const off = tasks.subscribe(owner, task.id, () => {
      if (!endsStream(task.status.state)) return;
      off();
      resolve();
    });
  });
}

/** A copy of the task with at most `history` messages of history and, unless asked, its artifacts. */
function view(task: Task, history?: number, artifacts = true): Task {
  const out: Task = { id: task.id, contextId: task.contextId, status: task.status };
  if (artifacts && task.artifacts?.length) out.artifacts = task.artifacts;
  const h = task.history ?? [];
  if (history !== 0 && h.length) out.history = history === undefined ? h : h.slice(-history);
  if (task.metadata) out.metadata = task.metadata;
  return out;
}

function messageOf(p: Record<string, unknown>): Message {
  const m = p.message;
  if (!isObject(m)) throw new A2aError("InvalidParams", "params.message is required");
  if (typeof m.messageId !== "string" || !m.messageId) throw new A2aError("InvalidParams", "message.messageId is required");
  if (m.role !== "ROLE_USER") throw new A2aError("InvalidParams", 'message.role must be "ROLE_USER"');
  if (!Array.isArray(m.parts) || m.parts.length === 0) throw new A2aError("InvalidParams", "message.parts must be a non-empty array");
  for (const part of m.parts) {
    const kinds = isObject(part) ? ["text", "raw", "url", "data"].filter((k) => part[k] !== undefined) : [];
    if (kinds.length !== 1) throw new A2aError("InvalidParams", "each part holds exactly one of text, raw, url, data");
  }
  for (const k of ["contextId", "taskId"] as const)
    if (m[k] !== undefined && typeof m[k] !== "string") throw new A2aError("InvalidParams", `message.${k} must be a string`);
  return m as unknown as Message;
}

function idOf(p: Record<string, unknown>): string {
  if (typeof p.id !== "string" || !p.id) throw new A2aError("InvalidParams", "params.id (the task id) is required");
  return p.id;
}

function taskIdOf(p: Record<string, unknown>): string {
  if (typeof p.taskId !== "string" || !p.taskId) throw new A2aError("InvalidParams", "params.taskId is required");
  return p.taskId;
}

function historyLength(v: unknown): number | undefined {
  return intParam(v, "historyLength", 0, 10_000);
}

function intParam(v: unknown, name: string, min: number, max: number): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max)
    throw new A2aError("InvalidParams", `${name} must be an integer from ${min} to ${max}`);
  return n;
}

function pageOffset(token: unknown): number {
  const n = typeof token === "string" ? Number(Buffer.from(token, "base64url").toString()) : NaN;
  if (!Number.isInteger(n) || n < 0) throw new A2aError("InvalidParams", "pageToken is not one this server gave");
  return n;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
