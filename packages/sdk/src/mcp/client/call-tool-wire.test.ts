/** The tools/call request on the wire: the params the client sends, key by key, whichever path builds them. */
import { describe, expect, test } from "bun:test";
import { connect, newServer, useCleanup } from "../__fixtures__/test-harness.ts";

useCleanup();

describe("McpClient.callTool: the request it sends", () => {
  test("name, arguments, then _meta with the run id (the caller's meta merged under it, the progress token last)", async () => {
    const server = newServer();
    server.tool({ name: "t" }, () => ({ content: [] }));
    const { client, rec } = await connect(server, { runId: "run-42" });
    await client.callTool("t", { x: 1 });
    await client.callTool("t", {}, { meta: { other: 1 } });
    await client.callTool("t", {}, { runId: "run-override", onprogress: () => {} });
    await client.callTool("t", { y: [2] }, { meta: { other: 2, "agentd.dev/run-id": "theirs" }, runId: "mine", onprogress: () => {} });
    await client.callTool("t");
    const sent = rec.sent.filter((s) => s.message.method === "tools/call").map((s) => JSON.stringify(s.message.params));
    const ids = rec.sent.filter((s) => s.message.method === "tools/call").map((s) => s.message.id as number);
    expect(sent).toEqual([
      '{"name":"t","arguments":{"x":1},"_meta":{"agentd.dev/run-id":"run-42"}}',
      '{"name":"t","arguments":{},"_meta":{"other":1,"agentd.dev/run-id":"run-42"}}',
      `{"name":"t","arguments":{},"_meta":{"agentd.dev/run-id":"run-override","progressToken":${ids[2]}}}`,
      `{"name":"t","arguments":{"y":[2]},"_meta":{"other":2,"agentd.dev/run-id":"mine","progressToken":${ids[3]}}}`,
      '{"name":"t","arguments":{},"_meta":{"agentd.dev/run-id":"run-42"}}',
    ]);
  });

  test("a refusal is a rejection, never a throw: an unavailable tool, a closed connection", async () => {
    const server = newServer();
    server.tool({ name: "t" }, () => ({ content: [] }));
    const { client } = await connect(server);
    await client.listTools();
    await client.close();
    let thrown: unknown;
    const pending = (() => {
      try {
        return client.callTool("t");
      } catch (e) {
        thrown = e;
        return undefined;
      }
    })();
    expect(thrown).toBeUndefined();
    await expect(pending).rejects.toThrow();
  });
});
