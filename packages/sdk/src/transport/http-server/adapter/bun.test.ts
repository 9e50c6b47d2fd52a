/** The server case suite with the Bun adapter (`Bun.serve`), and the adapter's own matching of the endpoint. */
import { expect, test } from "bun:test";
import { connect } from "node:net";
import { runServerCases } from "../__fixtures__/server.case.ts";
import { startCaseServer } from "../__fixtures__/case-server.ts";
import { listenBun } from "./bun.ts";

runServerCases("the server with the Bun adapter", (o) => startCaseServer(o, "bun"));

/** Send one raw request line (the target exactly as written) and read the answer's body. */
function raw(port: number, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () =>
      socket.write(`POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`),
    );
    let data = "";
    socket.on("data", (chunk) => (data += chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(data.slice(data.indexOf("\r\n\r\n") + 4)));
  });
}

const listening = (endpointPath: string) =>
  listenBun(
    { hostname: "127.0.0.1", port: 0, idleTimeout: 10, maxRequestBodySize: 1024, endpointPath },
    async (_req, _conn, path) => new Response(path ?? "(read from the URL)"),
  );

test("the endpoint's own path reaches the core already matched; every other target is left to the core to read", async () => {
  const listener = listening("/mcp");
  try {
    expect(await raw(listener.port, "/mcp")).toBe("/mcp");
    expect(await raw(listener.port, "/mcp?x=1")).toBe("/mcp");
    expect(await raw(listener.port, `http://127.0.0.1:${listener.port}/mcp`)).toBe("/mcp");
    for (const other of ["/other", "/mcp/", "/./mcp", "//mcp", "/%6dcp", "/MCP"])
      expect(await raw(listener.port, other)).toBe("(read from the URL)");
  } finally {
    await listener.stop();
  }
});

test("an endpoint path Bun's router would read as a pattern is not routed", async () => {
  const listener = listening("/mcp/:id");
  try {
    expect(await raw(listener.port, "/mcp/:id")).toBe("(read from the URL)");
    expect(await raw(listener.port, "/mcp/7")).toBe("(read from the URL)");
  } finally {
    await listener.stop();
  }
});
