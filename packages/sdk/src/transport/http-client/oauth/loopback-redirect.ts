/**
 * The redirect target of an interactive login (RFC 8252 §7.3): a listener on 127.0.0.1 (never beyond
 * loopback) that waits for the authorization server to send the browser back with `?code=…&state=…`.
 * Only a request to the callback path whose `state` matches the request in flight ends the wait; anything
 * else is answered 400 and ignored, so a stray or forged request cannot complete (or abort) the login.
 */
import type { AuthorizationCodeHandler } from "./provider.ts";

/** A started loopback redirect listener. */
export interface LoopbackRedirect extends AuthorizationCodeHandler {
  close(): Promise<void>;
}

const PAGE = (text: string) =>
  new Response(`<!doctype html><meta charset="utf-8"><title>agentd</title><p>${text}</p>`, {
    headers: { "content-type": "text/html; charset=utf-8" },
  });

/**
 * Start listening. `onUrl` is called with each authorization URL to visit (print it, open a browser);
 * `authorize` resolves with the callback's query, or rejects after `timeoutMs` (default 5 minutes).
 */
export function startLoopbackRedirect(options: { port?: number; onUrl: (url: URL) => void; timeoutMs?: number }): LoopbackRedirect {
  let waiting: { state: string; resolve: (q: URLSearchParams) => void } | undefined;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
      if (!waiting || url.searchParams.get("state") !== waiting.state) return new Response("unexpected state", { status: 400 });
      const done = waiting;
      waiting = undefined;
      done.resolve(url.searchParams);
      return PAGE(
        url.searchParams.has("error")
          ? "Authorization was refused. You can close this window."
          : "agentd is authorized. You can close this window.",
      );
    },
  });
  const redirectUri = `http://127.0.0.1:${server.port}/callback`;
  return {
    redirectUri,
    authorize(url, signal) {
      return new Promise<URLSearchParams>((resolve, reject) => {
        const fail = (why: string) => {
          waiting = undefined;
          reject(new Error(why));
        };
        const timer = setTimeout(
          () => fail("no answer from the browser within the time allowed; run the login again"),
          options.timeoutMs ?? 300_000,
        );
        signal?.addEventListener("abort", () => fail("login interrupted"), { once: true });
        waiting = {
          state: url.searchParams.get("state") ?? "",
          resolve: (q) => {
            clearTimeout(timer);
            resolve(q);
          },
        };
        options.onUrl(url);
      });
    },
    async close() {
      await server.stop(true);
    },
  };
}
