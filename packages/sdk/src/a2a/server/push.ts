/**
 * Push notifications: per task, webhook configs a client registers; every event of the task (a
 * `StreamResponse`) is POSTed to each, in order, with the config's token in `X-A2A-Notification-Token`
 * and its credentials in `Authorization`. Delivery is bounded (a few attempts with backoff, a timeout
 * each, no redirects followed) and SSRF-safe: a webhook must be a loopback address or a host the
 * operator allow-listed; anything else is refused when the config is created.
 */
import type { Logger } from "../../log.ts";
import { A2aError, type StreamResponse } from "../shared/types.ts";

/** `TaskPushNotificationConfig` as JSON. */
export interface PushConfig {
  id: string;
  taskId: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

/** Push settings. */
export interface A2aPushOptions {
  /** Webhook hosts allowed besides loopback (`host` or `host:port`). Default none. */
  allowedHosts?: string[];
  /** Attempts per event. Default 3. */
  attempts?: number;
  /** Timeout of one attempt. Default 5 s. */
  timeoutMs?: number;
  /** Webhook configs per task. Default 8. */
  maxConfigsPerTask?: number;
}

/**
 * A key the v0.3 edge sets on the config fields it passes in: how the config's events are rendered (v0.3
 * webhooks receive the bare v0.3 event). A symbol, so it never reaches JSON.
 */
export const PUSH_RENDER: unique symbol = Symbol("agentd.a2a.pushRender");

const LOOPBACK = /^(127(?:\.\d{1,3}){3}|\[::1\]|localhost)$/i;

/** The push configs of every principal's tasks, and their delivery. */
export class PushConfigs {
  private readonly byTask = new Map<string, Map<string, PushConfig>>();
  private readonly queues = new Map<string, Promise<void>>();
  private readonly renders = new WeakMap<PushConfig, (e: StreamResponse) => unknown>();

  constructor(
    private readonly o: A2aPushOptions,
    private readonly logger: Logger,
  ) {}

  /** Check a webhook URL: http(s), no credentials, loopback or allow-listed. */
  checkUrl(raw: unknown): URL {
    if (typeof raw !== "string" || !URL.canParse(raw))
      throw new A2aError("InvalidParams", "the push notification url must be an absolute http(s) URL");
    const url = new URL(raw);
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new A2aError("InvalidParams", "the push notification url must be http(s)");
    if (url.username || url.password)
      throw new A2aError("InvalidParams", "the push notification url must not carry credentials (use authentication)");
    const allowed =
      LOOPBACK.test(url.hostname) ||
      (this.o.allowedHosts ?? []).some((h) => h.toLowerCase() === url.hostname.toLowerCase() || h.toLowerCase() === url.host.toLowerCase());
    if (!allowed)
      throw new A2aError(
        "InvalidParams",
        `push notifications go only to loopback or allow-listed hosts; ${url.hostname} is not (see serve.a2a.pushAllowedHosts)`,
      );
    return url;
  }

  /** Register a config for `owner`'s task. */
  create(owner: string, taskId: string, params: Record<string, unknown>): PushConfig {
    const url = this.checkUrl(params.url);
    const auth = params.authentication as { scheme?: unknown; credentials?: unknown } | undefined;
    if (auth !== undefined && (typeof auth !== "object" || typeof auth?.scheme !== "string"))
      throw new A2aError("InvalidParams", "authentication.scheme must be a string");
    if (params.token !== undefined && typeof params.token !== "string") throw new A2aError("InvalidParams", "token must be a string");
    const configs = this.configs(owner, taskId, true)!;
    const id = typeof params.id === "string" && params.id ? params.id : crypto.randomUUID();
    if (!configs.has(id) && configs.size >= (this.o.maxConfigsPerTask ?? 8))
      throw new A2aError("InvalidParams", `a task takes at most ${this.o.maxConfigsPerTask ?? 8} push notification configs`);
    const config: PushConfig = {
      id,
      taskId,
      url: url.href,
      token: typeof params.token === "string" ? params.token : undefined,
      authentication: auth && {
        scheme: String(auth.scheme),
        credentials: typeof auth.credentials === "string" ? auth.credentials : undefined,
      },
    };
    configs.set(id, config);
    const render = (params as { [PUSH_RENDER]?: unknown })[PUSH_RENDER];
    if (typeof render === "function") this.renders.set(config, render as (e: StreamResponse) => unknown);
    return config;
  }

  get(owner: string, taskId: string, id: string): PushConfig {
    const c = this.configs(owner, taskId)?.get(id);
    if (!c) throw new A2aError("TaskNotFound", `no push notification config ${id} on task ${taskId}`);
    return c;
  }

  list(owner: string, taskId: string): PushConfig[] {
    return [...(this.configs(owner, taskId)?.values() ?? [])];
  }

  delete(owner: string, taskId: string, id: string): void {
    this.get(owner, taskId, id);
    this.configs(owner, taskId)!.delete(id);
  }

  /** Deliver an event of `owner`'s task to its webhooks, in order per webhook. */
  deliver(owner: string, taskId: string, event: StreamResponse): void {
    for (const c of this.list(owner, taskId)) {
      const key = `${owner}\n${taskId}\n${c.id}`;
      const prev = this.queues.get(key) ?? Promise.resolve();
      const next = prev.then(() => this.post(c, event));
      this.queues.set(key, next);
      void next.finally(() => this.queues.get(key) === next && this.queues.delete(key));
    }
  }

  /** Resolves when every queued delivery has ended (tests, drain). */
  async idle(): Promise<void> {
    while (this.queues.size) await Promise.allSettled([...this.queues.values()]);
  }

  private configs(owner: string, taskId: string, create = false): Map<string, PushConfig> | undefined {
    const key = `${owner}\n${taskId}`;
    let m = this.byTask.get(key);
    if (!m && create) this.byTask.set(key, (m = new Map()));
    return m;
  }

  private async post(c: PushConfig, event: StreamResponse): Promise<void> {
    const attempts = this.o.attempts ?? 3;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (c.token) headers["x-a2a-notification-token"] = c.token;
    if (c.authentication?.credentials) headers.authorization = `${c.authentication.scheme} ${c.authentication.credentials}`;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const res = await fetch(c.url, {
          method: "POST",
          headers,
          body: JSON.stringify((this.renders.get(c) ?? ((e) => e))(event)),
          redirect: "manual",
          signal: AbortSignal.timeout(this.o.timeoutMs ?? 5000),
        });
        await res.body?.cancel();
        if (res.ok) return;
        if (res.status < 500 && res.status !== 429) break;
      } catch {
        // A refused connection or a timeout: try again after the backoff.
      }
      if (attempt < attempts) await new Promise((r) => setTimeout(r, 200 * 2 ** (attempt - 1)));
    }
    this.logger.warn("a2a.push.failed", { taskId: c.taskId, host: new URL(c.url).host, attempts });
  }
}
