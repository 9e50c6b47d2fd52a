/**
 * Test fixture: the server the shared case suite (`server.case.ts`) drives, started with JSON-only options so
 * the same server runs in the test process (either adapter) or in a Node process (`node-serve.ts`). Its MCP
 * stand-in answers `initialize` and `tools/call` with the tools `echo` (the text back), `notify` (that many small
 * messages on the GET stream), `whoami` (the
 * authenticated principal) and `flood` (server messages on the session's GET stream until that stream is
 * cut for a peer that does not read).
 */
import type { Transport } from "../../types.ts";
import type { HttpAdapterName } from "../adapter/types.ts";
import { createStreamableHttpServer, type HttpServerLimits, type StreamableHttpServer } from "../index.ts";

/** What a case may configure (JSON only: it crosses a process boundary). */
export interface CaseOptions {
  limits?: HttpServerLimits;
  auth?: { bearerTokens?: string[]; mtls?: boolean };
  /** PEM contents. */
  tls?: { cert: string; key: string; ca?: string };
  responseMode?: "sse" | "json";
  allowedOrigins?: string[];
  behindProxy?: { trustedProxies: string[] };
}

/** A started server as a case sees it. */
export interface CaseServer {
  url: URL;
  close(): Promise<void>;
}

/** Starts a server for one case. */
export type StartCaseServer = (options: CaseOptions) => Promise<CaseServer>;

/** Start the case server in this process with `adapter` (undefined: the runtime's own). */
export async function startCaseServer(options: CaseOptions, adapter?: HttpAdapterName): Promise<StreamableHttpServer> {
  let server: StreamableHttpServer | undefined;
  const streams = () => server?.stats().streams ?? 0;
  server = await createStreamableHttpServer({ ...options, ...(adapter ? { adapter } : {}), onsession: (t) => answer(t, streams) });
  return server;
}

function answer(transport: Transport, streams: () => number): Promise<void> {
  transport.onmessage = (value, extra) => {
    const m = value as {
      id?: string | number;
      method?: string;
      params?: { name?: string; arguments?: { text?: string }; protocolVersion?: string };
    };
    if (m.id === undefined || typeof m.method !== "string") return;
    const id = m.id;
    const reply = (result: Record<string, unknown>) => void transport.send({ jsonrpc: "2.0", id, result });
    const text = (t: string) => reply({ content: [{ type: "text", text: t }] });
    if (m.method === "initialize")
      return reply({
        protocolVersion: m.params?.protocolVersion ?? "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "case-server", version: "0" },
      });
    if (m.method !== "tools/call") return void transport.send({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
    const name = m.params?.name;
    if (name === "echo") return text(m.params?.arguments?.text ?? "");
    if (name === "whoami") return text(JSON.stringify(extra?.authInfo ?? null));
    if (name === "notify") {
      const n = Number(m.params?.arguments?.text ?? "1");
      for (let i = 1; i <= n; i++)
        void transport.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: i } });
      return text(`sent ${n}`);
    }
    if (name === "flood") return void flood(transport, streams).then((r) => text(JSON.stringify(r)));
    transport.send({ jsonrpc: "2.0", id, error: { code: -32602, message: `no tool ${name}` } });
  };
  return transport.start();
}

/** Send 256 KiB messages (not tied to a request: they go to the GET stream) until a stream closes, at most 400. */
async function flood(transport: Transport, streams: () => number): Promise<{ cut: boolean; sent: number }> {
  const before = streams();
  const big = "x".repeat(256 * 1024);
  let sent = 0;
  while (streams() >= before && sent < 400) {
    await transport.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: big } });
    sent++;
    await new Promise((r) => setImmediate(r));
  }
  return { cut: streams() < before, sent };
}
