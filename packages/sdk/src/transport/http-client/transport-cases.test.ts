/**
 * The shared transport cases: the Streamable HTTP client paired with a minimal server end on 127.0.0.1.
 */
import { runTransportCases } from "../__fixtures__/transport.case.ts";
import { FixtureServerEnd } from "./__fixtures__/server-end.ts";
import { StreamableHttpClientTransport } from "./streamable-http-client.ts";

runTransportCases(
  "StreamableHttpClientTransport ⇄ fixture server end",
  async () => {
    const b = new FixtureServerEnd();
    const a = new StreamableHttpClientTransport(b.url, { name: "fixture-end" });
    try {
      await a.start();
      await b.start();
      // The session handshake, as the MCP client layer would do it; the suite takes over the callbacks after.
      const initialized = new Promise<void>((resolve) => (a.onmessage = () => resolve()));
      await a.send({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
      await initialized;
      a.onmessage = undefined;
      await a.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      const state = await a.openGetStream();
      if (state !== "open") throw new Error(`GET stream did not open: ${state}`);
    } catch (e) {
      await a.close();
      await b.stop();
      throw e;
    }
    return {
      a,
      b,
      cleanup: async () => {
        await a.close();
        await b.stop();
      },
    };
  },
  // An HTTP client learns of a closed server only when it next talks to it; concurrent POSTs may reorder.
  { farSide: "send-rejects", concurrentBurst: false },
);
