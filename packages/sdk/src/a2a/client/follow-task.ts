/**
 * Following a remote A2A task to its end, the two ways besides polling: reading its stream — re-attached
 * with SubscribeToTask when the connection drops — and taking its push notifications at a loopback webhook.
 * Each event is folded into the call's reply and reported; the caller polls with GetTask for whatever is
 * left unsettled.
 */
import type { A2aClient, SendMessageRequest, StreamResponse } from "./index.ts";
import type { PushRegistration } from "./push-receiver.ts";
import type { Logger } from "../../log.ts";
import type { ToolCallContext } from "../../loop/tools.ts";
import { foldEvent, foldTask, settled, type A2aReply } from "./reply.ts";

/** Times a dropped task stream is re-attached (SubscribeToTask) before GetTask takes over. */
export const MAX_RESUBSCRIBES = 3;

/** One call following one remote task. */
export interface Following {
  agent: string;
  client: A2aClient;
  reply: A2aReply;
  ctx: ToolCallContext;
  /** Report the reply's state as progress (once per change). */
  report: () => void;
  logger?: Logger;
}

/**
 * Read a task's stream until it settles. A stream that breaks or ends early (a dropped connection) is
 * re-attached with SubscribeToTask, up to {@link MAX_RESUBSCRIBES} times; a subscription refused at once
 * (the task ended meanwhile, or the agent does not offer it) leaves the rest to GetTask.
 */
export async function followStream(f: Following, first: AsyncIterable<StreamResponse>): Promise<void> {
  const { agent, client, reply, ctx } = f;
  let events = first;
  for (let attempt = 0; ; attempt++) {
    let seen = 0;
    try {
      for await (const event of events) {
        seen++;
        foldEvent(reply, event);
        f.report();
        if (settled(reply)) return;
      }
      if (reply.taskId === undefined) return;
    } catch (e) {
      if (ctx.signal.aborted || reply.taskId === undefined) throw e;
      const error = e instanceof Error ? e.message : String(e);
      if (attempt > 0 && seen === 0) {
        f.logger?.warn("a2a.resubscribe_failed", { runId: ctx.runId, agent, taskId: reply.taskId, error });
        return;
      }
      f.logger?.warn("a2a.stream_dropped", { runId: ctx.runId, agent, taskId: reply.taskId, error });
    }
    if (attempt >= MAX_RESUBSCRIBES) return;
    f.logger?.info("a2a.resubscribe", { runId: ctx.runId, agent, taskId: reply.taskId, attempt: attempt + 1 });
    events = client.subscribeToTask(reply.taskId, ctx.signal);
  }
}

/**
 * Follow a task by push: the message goes with the webhook's config (its own URL and token) and
 * `returnImmediately`; each event the agent POSTs is folded in as it comes. A quiet spell (from 5 s,
 * doubling up to 30 s) is bridged by a GetTask, so a lost notification delays the answer, never loses it.
 */
export async function followByPush(f: Following, request: SendMessageRequest, hook: PushRegistration): Promise<void> {
  const { client, reply, ctx } = f;
  try {
    const first = await client.sendMessage(
      { ...request, configuration: { returnImmediately: true, taskPushNotificationConfig: { url: hook.url, token: hook.token } } },
      ctx.signal,
    );
    if (first.message) foldEvent(reply, { message: first.message });
    else foldTask(reply, first.task);
    f.report();
    for (let quiet = 5000; !settled(reply); ) {
      const event = await hook.next(quiet, ctx.signal);
      if (event) {
        foldEvent(reply, event);
        quiet = 5000;
      } else {
        foldTask(reply, await client.getTask(reply.taskId as string, { signal: ctx.signal }));
        quiet = Math.min(quiet * 2, 30_000);
      }
      f.report();
    }
  } finally {
    hook.close();
  }
}
