/**
 * A busy session's answers reuse one set of response headers (responses.ts): each answer still carries its
 * own session's id and the headers of its kind, in SSE and in JSON mode, interleaved across sessions.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { callTool, createResponder, initializeRequest, openSession, post, SseReader } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "./index.ts";

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("response headers of a session's answers", () => {
  for (const responseMode of ["sse", "json"] as const)
    test(`${responseMode}: each answer names its own session, with its kind's headers`, async () => {
      const responder = createResponder();
      const server = await createStreamableHttpServer({ onsession: responder.onsession, responseMode });
      servers.push(server);
      const sessions = [await openSession(server.url), await openSession(server.url)];
      expect(sessions[0]!.sessionId).not.toBe(sessions[1]!.sessionId);
      for (let id = 1; id <= 6; id++) {
        const s = sessions[id % 2]!;
        const res = await post(server.url, callTool(id, "echo", `t${id}`), s.headers);
        expect(res.status).toBe(200);
        expect(res.headers.get("mcp-session-id")).toBe(s.sessionId);
        if (responseMode === "sse") {
          expect(res.headers.get("content-type")).toBe("text/event-stream");
          expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
          expect((await new SseReader(res).nextMessage())?.message).toMatchObject({ id, result: { content: [{ text: `t${id}` }] } });
        } else {
          expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
          expect(await res.json()).toMatchObject({ id, result: { content: [{ text: `t${id}` }] } });
        }
      }
    });

  test("json: the initialize answer and the later ones carry the content type Response.json sets, and the session id", async () => {
    const responder = createResponder();
    const server = await createStreamableHttpServer({ onsession: responder.onsession, responseMode: "json" });
    servers.push(server);
    const init = await post(server.url, initializeRequest());
    expect(init.status).toBe(200);
    expect([...init.headers].filter(([k]) => k !== "date" && k !== "content-length")).toEqual([
      ["content-type", "application/json;charset=utf-8"],
      ["mcp-session-id", init.headers.get("mcp-session-id") as string],
    ]);
    const s = await openSession(server.url);
    const res = await post(server.url, callTool(1, "echo", "t"), s.headers);
    expect([...res.headers].filter(([k]) => k !== "date" && k !== "content-length")).toEqual([
      ["content-type", "application/json;charset=utf-8"],
      ["mcp-session-id", s.sessionId],
    ]);
    expect(await res.text()).toBe(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "t" }] } }));
  });
});
