/**
 * Test fixture: a model endpoint that refuses every request with a 400 whose error text quotes the request's URL and
 * headers, as some proxies and gateways do. Loopback, ephemeral port; `close()` stops it.
 */

/** A running echoing gateway: its base URL (OpenAI-compatible path) and how many requests it refused. */
export interface EchoGateway {
  url: string;
  refused: number;
  close(): Promise<void>;
}

export function startEchoGateway(): EchoGateway {
  const state = { refused: 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      state.refused++;
      const headers = [...req.headers].map(([k, v]) => `${k}: ${v}`).join("; ");
      return Response.json(
        { error: { message: `bad request to ${req.url}, headers were: ${headers}`, type: "invalid_request_error" } },
        { status: 400 },
      );
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    get refused() {
      return state.refused;
    },
    async close() {
      await server.stop(true);
    },
  };
}
