/**
 * The webhook agentd's A2A client registers with a remote agent for a long task: a listener on 127.0.0.1
 * (never beyond loopback) where each registration has its own path and its own random token. A POST is
 * taken only at a registered path with that token in `X-A2A-Notification-Token` (compared in constant
 * time), within a size bound and the server side's JSON nesting bound, and only if its body is a v1.0 `StreamResponse`; anything else is refused
 * and logged without the token. The events are queued per registration for the call that follows the task.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import * as v from "valibot";
import type { Logger } from "../../log.ts";
import { readBoundedBody } from "../../transport/http-server/body.ts";
import { listen } from "../../transport/http-server/adapter/index.ts";
import { jsonDepthMessage, jsonTooDeep } from "../../wire/json-depth.ts";
import { StreamResponseSchema, type StreamResponse } from "./wire-types.ts";

/** One webhook: its URL and token (to send in the push config), and its events. */
export interface PushRegistration {
  url: string;
  token: string;
  /** The next event, or undefined when none came within `timeoutMs`; rejects when `signal` aborts. */
  next(timeoutMs: number, signal: AbortSignal): Promise<StreamResponse | undefined>;
  /** Stop taking events at this URL. */
  close(): void;
}

/** A started receiver. */
export interface PushReceiver {
  register(): PushRegistration;
  close(): Promise<void>;
}

const PATH = "/a2a-push/";

/** Start the receiver on an ephemeral loopback port (with the runtime's HTTP adapter). */
export async function startPushReceiver(o: { logger?: Logger; maxBodyBytes?: number } = {}): Promise<PushReceiver> {
  const regs = new Map<string, { token: Buffer; queue: StreamResponse[]; wake?: () => void }>();
  const refuse = (status: number, reason: string) => {
    o.logger?.warn("a2a.push.refused", { status, reason });
    return new Response(null, { status });
  };
  const server = await listen(
    undefined,
    { hostname: "127.0.0.1", port: 0, idleTimeout: 30, maxRequestBodySize: (o.maxBodyBytes ?? 1 << 20) + 1024 },
    async (req) => {
      const path = new URL(req.url).pathname;
      const reg = path.startsWith(PATH) ? regs.get(path.slice(PATH.length)) : undefined;
      if (req.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
      if (!reg) return refuse(404, "no registration at this path");
      const given = Buffer.from(req.headers.get("x-a2a-notification-token") ?? "");
      if (given.length !== reg.token.length || !timingSafeEqual(given, reg.token))
        return refuse(401, "wrong or missing X-A2A-Notification-Token");
      const read = await readBoundedBody(req, o.maxBodyBytes ?? 1 << 20);
      if (!read.ok) return refuse(read.status, read.status === 408 ? "body did not arrive in time" : "body too large or not UTF-8");
      // The server side's bound: a body nested tens of thousands of levels deep overflows every walk after the parse.
      if (jsonTooDeep(read.text)) return refuse(400, jsonDepthMessage());
      let body: unknown;
      try {
        body = JSON.parse(read.text);
      } catch {
        return refuse(400, "body is not JSON");
      }
      const event = v.safeParse(StreamResponseSchema, body);
      if (!event.success) return refuse(400, "body is not an A2A 1.0 StreamResponse");
      reg.queue.push(event.output as StreamResponse);
      reg.wake?.();
      return new Response(null, { status: 200 });
    },
  );
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    register() {
      const id = crypto.randomUUID();
      const token = randomBytes(24).toString("base64url");
      const reg: { token: Buffer; queue: StreamResponse[]; wake?: () => void } = { token: Buffer.from(token), queue: [] };
      regs.set(id, reg);
      return {
        url: `${origin}${PATH}${id}`,
        token,
        next(timeoutMs, signal) {
          if (reg.queue.length) return Promise.resolve(reg.queue.shift());
          return new Promise((resolve, reject) => {
            const done = () => {
              clearTimeout(timer);
              signal.removeEventListener("abort", aborted);
              reg.wake = undefined;
            };
            const aborted = () => (done(), reject(signal.reason));
            const timer = setTimeout(() => (done(), resolve(undefined)), timeoutMs);
            if (signal.aborted) return aborted();
            signal.addEventListener("abort", aborted, { once: true });
            reg.wake = () => (done(), resolve(reg.queue.shift()));
          });
        },
        close: () => void regs.delete(id),
      };
    },
    close: () => server.stop(),
  };
}
