/**
 * The v0.3 JSON-RPC methods as a table over the v1.0 service: each names the v1.0 operation it is,
 * how its v0.3 params become v1.0 params, and how the v1.0 answer becomes the v0.3 result. The service is
 * not forked: a v0.3 request runs the same code as its v1.0 twin, only its edges are translated.
 */
import { A2aError, type AgentCard, type Task } from "../../shared/types.ts";
import type { Principal } from "../../../serve/principal.ts";
import { PUSH_RENDER, type PushConfig } from "../push.ts";
import type { A2aService } from "../service.ts";
import { cardToV03 } from "./card.ts";
import { eventToV03, messageFromV03, pushConfigFromV03, pushConfigToV03, sendResultToV03, taskToV03 } from "../../shared/v03-shapes.ts";

type Params = Record<string, unknown>;
type Call = (method: string, params: Params) => Promise<unknown>;

/** One v0.3 method: unary (`run`) or streaming (`stream`, whose events are rendered with {@link eventToV03}). */
interface V03Method {
  run?: (call: Call, p: Params) => Promise<unknown>;
  stream?: { v1: string; params: (p: Params) => Params };
}

const isObject = (v: unknown): v is Params => typeof v === "object" && v !== null && !Array.isArray(v);

/** A v0.3 `MessageSendParams` as a v1.0 `SendMessageRequest` (v0.3 `blocking: false` is v1.0 `returnImmediately`). */
function sendParams(p: Params): Params {
  const c = isObject(p.configuration) ? p.configuration : {};
  const push =
    c.pushNotificationConfig === undefined ? undefined : { ...pushConfigFromV03(c.pushNotificationConfig), [PUSH_RENDER]: eventToV03 };
  const configuration = {
    returnImmediately: c.blocking === false,
    historyLength: c.historyLength,
    acceptedOutputModes: Array.isArray(c.acceptedOutputModes) ? c.acceptedOutputModes : undefined,
    taskPushNotificationConfig: push,
  };
  return { message: messageFromV03(p.message), configuration, metadata: isObject(p.metadata) ? p.metadata : undefined };
}

const taskId = (p: Params): Params => ({ id: p.id });

/** The v0.3 methods by name. */
export const V03_METHODS: Readonly<Record<string, V03Method>> = {
  "message/send": { run: async (call, p) => sendResultToV03(await call("SendMessage", sendParams(p))) },
  "message/stream": { stream: { v1: "SendStreamingMessage", params: sendParams } },
  "tasks/get": {
    run: async (call, p) => taskToV03((await call("GetTask", { id: p.id, historyLength: p.historyLength })) as Task),
  },
  "tasks/cancel": { run: async (call, p) => taskToV03((await call("CancelTask", taskId(p))) as Task) },
  "tasks/resubscribe": { stream: { v1: "SubscribeToTask", params: taskId } },
  "tasks/pushNotificationConfig/set": {
    run: async (call, p) => {
      const fields = { ...pushConfigFromV03(p.pushNotificationConfig), [PUSH_RENDER]: eventToV03 };
      return pushConfigToV03((await call("CreateTaskPushNotificationConfig", { taskId: p.taskId, ...fields })) as PushConfig);
    },
  },
  "tasks/pushNotificationConfig/get": {
    // v0.3 may leave the config id out: the task's (first) config is meant.
    run: async (call, p) => {
      if (typeof p.pushNotificationConfigId === "string")
        return pushConfigToV03(
          (await call("GetTaskPushNotificationConfig", { taskId: p.id, id: p.pushNotificationConfigId })) as PushConfig,
        );
      const first = ((await call("ListTaskPushNotificationConfigs", { taskId: p.id })) as { configs: PushConfig[] }).configs[0];
      if (!first) throw new A2aError("TaskNotFound", `task ${String(p.id)} has no push notification config`);
      return pushConfigToV03(first);
    },
  },
  "tasks/pushNotificationConfig/list": {
    run: async (call, p) =>
      ((await call("ListTaskPushNotificationConfigs", { taskId: p.id })) as { configs: PushConfig[] }).configs.map(pushConfigToV03),
  },
  "tasks/pushNotificationConfig/delete": {
    run: async (call, p) => {
      await call("DeleteTaskPushNotificationConfig", { taskId: p.id, id: p.pushNotificationConfigId });
      return null;
    },
  },
  "agent/getAuthenticatedExtendedCard": { run: async (call) => cardToV03((await call("GetExtendedAgentCard", {})) as AgentCard) },
};

/** Whether `method` is a v0.3 JSON-RPC method. */
export const isV03Method = (method: string): boolean => Object.hasOwn(V03_METHODS, method);

/** Whether the v0.3 `method` streams. */
export const v03Streams = (method: string): boolean => V03_METHODS[method]?.stream !== undefined;

/** Run a unary v0.3 method through the service; the answer is the v0.3 result. */
export function callV03(service: A2aService, method: string, params: Params, who: Principal): Promise<unknown> {
  return V03_METHODS[method]!.run!((m, p) => service.call(m, p, who), params);
}

/** The v1.0 streaming call a v0.3 streaming method is (render its events with {@link eventToV03}). */
export function v03Stream(method: string, params: Params): { method: string; params: Params } {
  const s = V03_METHODS[method]!.stream!;
  return { method: s.v1, params: s.params(params) };
}
