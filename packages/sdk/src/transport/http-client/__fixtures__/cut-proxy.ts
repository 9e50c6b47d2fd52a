/**
 * Test fixture: an HTTP proxy on 127.0.0.1 in front of an MCP endpoint that can break the SSE responses
 * passing through it the way a network drop does: the client's socket is destroyed mid-stream and the
 * upstream request is aborted, so the server sees its client go away. (node:http, because it can destroy
 * one response's socket; Bun.serve cannot.)
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

interface LiveStream {
  method: string;
  cut(): void;
}

/** A started proxy. */
export interface CutProxy {
  url: string;
  /** Every request forwarded: method and `Last-Event-ID`. */
  log: Array<{ method: string; lastEventId: string | null }>;
  /** Break every SSE response of this HTTP method now flowing; returns how many were cut. */
  cut(method: "GET" | "POST"): number;
  stop(): Promise<void>;
}

const KEEP = ["content-type", "mcp-session-id", "cache-control", "www-authenticate"];

/** Start a proxy forwarding to `upstream` (an absolute URL; the path is kept). */
export async function startCutProxy(upstream: string): Promise<CutProxy> {
  const live = new Set<LiveStream>();
  const log: CutProxy["log"] = [];
  const server = http.createServer(async (req, res) => {
    const method = req.method ?? "GET";
    const lastEventId = req.headers["last-event-id"];
    log.push({ method, lastEventId: typeof lastEventId === "string" ? lastEventId : null });
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host") headers.set(k, v);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const upstreamCtrl = new AbortController();
    const entry: LiveStream = {
      method,
      cut: () => {
        live.delete(entry);
        upstreamCtrl.abort();
        res.destroy();
      },
    };
    try {
      const body = method === "POST" ? Buffer.concat(chunks) : undefined;
      const upstreamRes = await fetch(upstream, { method, headers, body, redirect: "manual", signal: upstreamCtrl.signal });
      const out: Record<string, string> = {};
      for (const k of KEEP) {
        const v = upstreamRes.headers.get(k);
        if (v !== null) out[k] = v;
      }
      res.writeHead(upstreamRes.status, out);
      res.flushHeaders();
      const sse = (upstreamRes.headers.get("content-type") ?? "").startsWith("text/event-stream");
      if (sse) live.add(entry);
      res.on("close", () => {
        live.delete(entry);
        upstreamCtrl.abort(); // the client went away: let the server know
      });
      if (upstreamRes.body) for await (const chunk of upstreamRes.body) res.write(chunk);
      live.delete(entry);
      res.end();
    } catch {
      live.delete(entry);
      res.destroy(); // cut, or the upstream broke: the client sees its connection break
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${new URL(upstream).pathname}`,
    log,
    cut(method) {
      let n = 0;
      for (const s of [...live]) {
        if (s.method !== method) continue;
        s.cut();
        n++;
      }
      return n;
    },
    async stop() {
      for (const s of [...live]) s.cut();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
