/**
 * The least MCP server is a yardstick only while it does what it says: it answers a tools/call in a session
 * and refuses what an MCP server must refuse. Checked over real HTTP against the server process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BENCH_DIR, BUN, type Child, startChild } from "../../lib/proc.ts";

const ACCEPT = "application/json, text/event-stream";

for (const mode of ["json", "sse"] as const) {
  describe(`least MCP server, ${mode}`, () => {
    let child: Child;
    let url: string;
    let sid: string;
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: "POST",
        headers: { accept: ACCEPT, "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    const inSession = (extra: Record<string, string> = {}) => ({ "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25", ...extra });
    /** The one JSON-RPC message of an answer, in either response mode. */
    const messageOf = async (r: Response) => {
      const text = await r.text();
      return JSON.parse(mode === "json" ? text : (text.split("\n").findLast((l) => l.startsWith("data: {")) ?? "").slice(6));
    };

    beforeAll(async () => {
      child = startChild([BUN, join(BENCH_DIR, "http/servers/least-mcp.ts"), mode]);
      const { port } = await child.next<{ port: number }>(30_000);
      url = `http://127.0.0.1:${port}/mcp`;
      const init = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25" } });
      sid = init.headers.get("mcp-session-id") ?? "";
      expect((await init.json()).result.protocolVersion).toBe("2025-11-25");
    });
    afterAll(() => child.stop());

    test("answers the echo in its session, with the session id header", async () => {
      const r = await post(
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } },
        inSession(),
      );
      expect(r.status).toBe(200);
      expect(r.headers.get("mcp-session-id")).toBe(sid);
      expect(r.headers.get("content-type")).toStartWith(mode === "json" ? "application/json" : "text/event-stream");
      expect(await messageOf(r)).toEqual({ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "hi" }] } });
    });

    test("arguments the tool's schema refuses are a tool error; an unknown method is -32601", async () => {
      const bad = await post(
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { text: 5 } } },
        inSession(),
      );
      expect((await messageOf(bad)).result.isError).toBe(true);
      const unknown = await post({ jsonrpc: "2.0", id: 4, method: "nope/nope" }, inSession());
      expect((await messageOf(unknown)).error.code).toBe(-32601);
    });

    test("refuses a foreign Host or Origin, an unknown session, another revision, a bad envelope", async () => {
      const call = { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } };
      expect((await post(call, inSession({ host: "evil.example" }))).status).toBe(403);
      expect((await post(call, inSession({ origin: "http://evil.example" }))).status).toBe(403);
      expect((await post(call, { ...inSession(), "mcp-session-id": "unknown" })).status).toBe(404);
      expect((await post(call, inSession({ "mcp-protocol-version": "2025-03-26" }))).status).toBe(400);
      expect((await post({ jsonrpc: "1.0", id: 6, method: "ping" }, inSession())).status).toBe(400);
      expect((await post("{not json", inSession())).status).toBe(400);
      expect((await post(call, inSession({ accept: "application/json" }))).status).toBe(406);
    });

    test("refuses a chunked body past its limit (no length to check first)", async () => {
      const chunk = new Uint8Array(1024 * 1024).fill(32);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull: (c) => (sent++ < 5 ? c.enqueue(chunk) : c.close()),
      });
      const r = await fetch(url, { method: "POST", headers: { accept: ACCEPT, "content-type": "application/json", ...inSession() }, body });
      expect(r.status).toBe(413);
      await r.arrayBuffer();
    });

    test("refuses JSON nested past its bound before parsing it", async () => {
      const deep = `${"[".repeat(100)}${"]".repeat(100)}`;
      const r = await post(
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":${deep}}}}`,
        inSession(),
      );
      expect(r.status).toBe(400);
    });
  });
}
