/// <reference lib="dom" />
/**
 * The console's connection: the bearer token typed once (kept in sessionStorage, sent as an Authorization
 * header, never a cookie), the JSON API, and the live stream of snapshots read from `/console/events` with
 * fetch (EventSource cannot send a header). A dropped stream reconnects with a growing delay.
 */

const TOKEN_KEY = "agentd.console.token";

/** The token of this tab, if one was typed. */
export const token = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (t: string) => sessionStorage.setItem(TOKEN_KEY, t),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const t = token.get();
  return t ? { ...extra, authorization: `Bearer ${t}` } : extra;
}

/** A failed API call: its HTTP status and the server's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function answer(res: Response): Promise<any> {
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, body?.error?.message ?? (res.status === 401 ? "sign in with a token" : `HTTP ${res.status}`));
  return body;
}

/** GET a console API path. */
export async function get(path: string): Promise<any> {
  return answer(await fetch(`/console/api/${path}`, { headers: headers(), cache: "no-store" }));
}

/** POST an operator action with its parameters. */
export async function act(action: string, params: Record<string, unknown> = {}): Promise<any> {
  return (
    await answer(
      await fetch(`/console/api/${action}`, {
        method: "POST",
        headers: headers({ "content-type": "application/json" }),
        body: JSON.stringify(params),
      }),
    )
  ).result;
}

/** Follow the snapshots: `onSnapshot` for each, `onState` for the connection's state. Returns a stop function. */
export function follow(
  onSnapshot: (s: any) => void,
  onState: (state: "live" | "retrying" | "unauthorized" | "forbidden", detail?: string) => void,
): () => void {
  let stopped = false;
  let delay = 500;
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const again = () => {
    if (stopped) return;
    onState("retrying");
    timer = setTimeout(run, delay);
    delay = Math.min(delay * 2, 15_000);
  };
  async function run(): Promise<void> {
    controller = new AbortController();
    try {
      const res = await fetch("/console/events", {
        headers: headers({ accept: "text/event-stream" }),
        signal: controller.signal,
        cache: "no-store",
      });
      if (res.status === 401) return onState("unauthorized");
      if (res.status === 403) return onState("forbidden", "this token may not read the agent's status");
      if (!res.ok || !res.body) return again();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).replace(/^ /, ""))
            .join("\n");
          if (!data) continue;
          delay = 500;
          onState("live");
          onSnapshot(JSON.parse(data));
        }
      }
    } catch (e) {
      if (stopped) return;
      if (!(e instanceof DOMException && e.name === "AbortError")) console.warn("console: the live stream broke; reconnecting");
    }
    again();
  }
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
    controller?.abort();
  };
}
