/**
 * A stateless (2026-07-28) session's open `subscriptions/listen` requests: each acknowledged with the part
 * of its filter the server honours, kept open until the client cancels it or the server ends it, and the
 * one path by which resource updates, task status and list changes reach a stateless client — each
 * notification tagged with its listen's id and sent on that request's stream.
 */
import type { RequestId } from "../../wire/jsonrpc.ts";
import { hasTasksExtension } from "../../wire/schemas/tasks-extension-id.ts";
import type { SubscriptionFilter } from "../../wire/types/methods-2026-07-28.generated.ts";
import type { RequestContext } from "../protocol/types.ts";
import type { ServerSession } from "./session.ts";
import { acknowledgedFilter, type Listen, listensToList, subscriptionMeta } from "./stateless-2026-07-28.ts";
import { detailedTask, followableTasks, requestDeclaresTasks, tasksExtensionRequired } from "./tasks-extension.ts";

/** The open listens of one session, by request id. */
export class SessionListens {
  private readonly open = new Map<RequestId, Listen & { end(): void }>();

  constructor(private readonly session: ServerSession) {}

  /**
   * `subscriptions/listen`: acknowledge the honoured part of the filter first (nothing of the subscription may
   * precede it), then keep the request open until the client cancels it or {@link endAll} ends it.
   */
  listen(asked: SubscriptionFilter, ctx: RequestContext): Promise<Record<string, unknown>> {
    const { session } = this;
    const id = ctx.requestId;
    const filter = acknowledgedFilter(asked, session.declared);
    // Tasks extension: task ids need the extension declared on this request; only the caller's own are followed.
    if (asked.taskIds !== undefined && asked.taskIds.length > 0) {
      if (!requestDeclaresTasks(ctx)) return Promise.reject(tasksExtensionRequired("subscribing to task status"));
      if (hasTasksExtension(session.declared)) filter.taskIds = followableTasks(session.server.options.tasks, asked.taskIds, ctx);
    }
    session
      .notify("notifications/subscriptions/acknowledged", { _meta: subscriptionMeta(id), notifications: filter }, { relatedRequestId: id })
      .catch(() => {});
    // Each followed task's state now: a task that settled before the listen opened is not missed.
    for (const taskId of filter.taskIds ?? []) {
      const detail = session.server.options.tasks?.detail?.(taskId, ctx);
      if (detail) this.sendTask(id, detailedTask(detail));
    }
    return this.holdOpen(id, filter, ctx.signal);
  }

  /** The listen's response, settled when it ends (resolved) or its request is cancelled (rejected). */
  private holdOpen(id: RequestId, filter: SubscriptionFilter, signal: AbortSignal): Promise<Record<string, unknown>> {
    const listens = this.open;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        listens.delete(id);
        reject(signal.reason);
      };
      listens.set(id, {
        id,
        filter,
        uris: new Set(filter.resourceSubscriptions ?? []),
        taskIds: filter.taskIds && new Set(filter.taskIds),
        end: () => {
          signal.removeEventListener("abort", onAbort);
          listens.delete(id);
          resolve({ _meta: subscriptionMeta(id) });
        },
      });
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** End every open listen gracefully: its response says the subscription closed on purpose (subscriptions spec). Returns how many. */
  endAll(): number {
    const open = [...this.open.values()];
    for (const l of open) l.end();
    return open.length;
  }

  /** `notifications/resources/updated` for `uri` to each listen that asked for it. */
  async resourceUpdated(uri: string): Promise<void> {
    const sends: Promise<void>[] = [];
    for (const l of this.open.values())
      if (l.uris.has(uri))
        sends.push(
          this.session
            .notify("notifications/resources/updated", { _meta: subscriptionMeta(l.id), uri }, { relatedRequestId: l.id })
            .catch(() => {}),
        );
    await Promise.all(sends);
  }

  /** `notifications/tasks` to each listen following `taskId` (its detail made once, only if one follows). */
  taskChanged(taskId: string, detail: () => Record<string, unknown>): void {
    let params: Record<string, unknown> | undefined;
    for (const l of this.open.values()) if (l.taskIds?.has(taskId)) this.sendTask(l.id, (params ??= detail()));
  }

  /** `notifications/<kind>/list_changed` to each listen that asked for it. */
  listChanged(kind: "tools" | "prompts" | "resources"): void {
    for (const l of this.open.values())
      if (listensToList(l, kind))
        this.session
          .notify(`notifications/${kind}/list_changed`, { _meta: subscriptionMeta(l.id) }, { relatedRequestId: l.id })
          .catch(() => {});
  }

  private sendTask(listen: RequestId, task: Record<string, unknown>): void {
    this.session.notify("notifications/tasks", { ...task, _meta: subscriptionMeta(listen) }, { relatedRequestId: listen }).catch(() => {});
  }
}
