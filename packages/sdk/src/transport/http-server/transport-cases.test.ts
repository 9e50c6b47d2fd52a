/**
 * The shared transport case suite over real HTTP: `a` is the server's per-session transport, `b` our
 * Streamable HTTP client transport. (This way round every message has a legal HTTP path: the server's
 * messages are unrelated to any client request and travel on the standalone GET stream; the client's are
 * POSTs. The other way round, a server response with no open request has nowhere to go.)
 */
import { StreamableHttpClientTransport } from "../http-client/index.ts";
import { runTransportCases } from "../__fixtures__/transport.case.ts";
import type { Transport } from "../types.ts";
import { createStreamableHttpServer } from "./index.ts";

runTransportCases(
  "Streamable HTTP server session ⇄ client",
  async () => {
    let serverSide: Transport | undefined;
    const server = await createStreamableHttpServer({
      onsession: async (t) => {
        serverSide = t;
        t.onmessage = (m) => {
          const msg = m as { id?: number; method?: string };
          if (msg.method === "initialize" && msg.id !== undefined)
            void t.send({
              jsonrpc: "2.0",
              id: msg.id,
              result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "cases", version: "0" } },
            });
        };
        await t.start();
      },
    });
    const client = new StreamableHttpClientTransport(server.url, { name: "cases", openGetStream: false });
    try {
      const initialized = new Promise<void>((resolve) => (client.onmessage = () => resolve()));
      await client.start();
      await client.send({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "cases", version: "0" } },
      });
      await initialized;
      client.setProtocolVersion("2025-11-25");
      await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      // The server's messages need the standalone stream open before the cases start sending.
      const state = await client.openGetStream();
      if (state !== "open" || !serverSide) throw new Error(`GET stream did not open (${state})`);
    } catch (e) {
      await client.close();
      await server.close();
      throw e;
    }
    return {
      a: serverSide,
      b: client,
      cleanup: async () => {
        await client.close();
        await server.close();
      },
    };
  },
  { farSide: "send-rejects", concurrentBurst: false },
);
