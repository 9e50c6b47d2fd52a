/**
 * The context a handshake-era session's handlers receive is the protocol's context of the request,
 * completed in place (one object per request, not a wrapper around another). Pinned here: the keys and
 * their order are the wrapper's, for tools, resources and prompts alike; a second completion is the same
 * object; progress is sent only with a token and server notifications on; a stateless session still gets a
 * context of its own.
 */
import { describe, expect, test } from "bun:test";
import type { ServerContext } from "./session.ts";
import { connect, newServer, useCleanup } from "../__fixtures__/test-harness.ts";

useCleanup();

/** The keys of a server context, in the order the context lists them. */
const KEYS = [
  "requestId",
  "method",
  "signal",
  "meta",
  "progressToken",
  "sessionId",
  "authInfo",
  "sendNotification",
  "sendRequest",
  "sendProgress",
  "session",
  "log",
  "clientCapabilities",
];

describe("the server context of a handshake-era session", () => {
  test("tools, resources and prompts get one plain object with the same keys, in order, and the session's values", async () => {
    const server = newServer({ capabilities: { prompts: true, serverNotifications: true } });
    const seen: ServerContext[] = [];
    server.tool({ name: "t" }, (_a, ctx) => {
      seen.push(ctx);
      return { content: [] };
    });
    server.resource({ uri: "mem://r", name: "r" }, (uri, ctx) => {
      seen.push(ctx);
      return { contents: [{ uri, text: "r" }] };
    });
    server.prompt({ name: "p" }, (_a, ctx) => {
      seen.push(ctx);
      return { messages: [] };
    });
    const { client, session } = await connect(server, { capabilities: { prompts: true, roots: [] } });
    await client.callTool("t", {});
    await client.readResource("mem://r");
    await client.getPrompt("p");
    expect(seen.map((c) => c.method)).toEqual(["tools/call", "resources/read", "prompts/get"]);
    for (const ctx of seen) {
      expect(Object.keys(ctx)).toEqual(KEYS);
      expect(Object.getPrototypeOf(ctx)).toBe(Object.prototype);
      expect(ctx.session).toBe(session);
      expect(ctx.clientCapabilities).toEqual(session.clientCapabilities);
      expect(ctx.progressToken).toBeUndefined();
      expect(ctx.signal.aborted).toBe(false);
      // A second completion (a task's run does one) hands back the same context.
      expect(session.context(ctx)).toBe(ctx);
      expect(Object.keys({ ...ctx })).toEqual(KEYS);
    }
    expect(new Set(seen.map((c) => c.log)).size).toBe(3);
  });

  test("progress goes out only with a token, and only when server notifications are on", async () => {
    for (const notifications of [true, false]) {
      const server = newServer({ capabilities: { serverNotifications: notifications } });
      const outcomes: unknown[] = [];
      server.tool({ name: "progress" }, async (_a, ctx) => {
        outcomes.push(await ctx.sendProgress(1, 2, "half"));
        return { content: [] };
      });
      const { client } = await connect(server);
      const withToken: unknown[] = [];
      await client.callTool("progress", {}, { onprogress: (p) => withToken.push(p) });
      await client.callTool("progress", {});
      await client.ping();
      expect(outcomes).toEqual([undefined, undefined]);
      expect(withToken).toEqual(notifications ? [{ progress: 1, total: 2, message: "half" }] : []);
    }
  });
});
