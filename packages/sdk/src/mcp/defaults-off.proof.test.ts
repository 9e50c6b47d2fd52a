/**
 * Proof of the client's defaults for sampling, roots and elicitation on a real stdio session: a server that
 * sends `roots/list`, `sampling/createMessage` and `elicitation/create` to our client — which declared
 * nothing — gets exactly `{"roots":[]}`, -32601 and -32601, and the session carries on.
 */
import { afterEach, expect, test } from "bun:test";
import { memoryLogger } from "../log.ts";
import { StdioChildTransport } from "../transport/stdio-child.ts";
import { McpClient } from "./client/client.ts";
import { fakeServerCommand, type FakeServerCommand } from "@agentd/testkit";

let client: McpClient | undefined;
let fake: FakeServerCommand | undefined;
afterEach(async () => {
  await client?.close();
  fake?.dispose();
  client = fake = undefined;
});

const sampling = { messages: [{ role: "user", content: { type: "text", text: "hello?" } }], maxTokens: 16 };
const elicitation = { message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } };

/** The JSON a `clientRequest` tool answers with. */
const answer = async (name: string) => {
  const result = await client!.callTool(name);
  return { isError: result.isError === true, body: JSON.parse(String(result.content[0]!.text)) };
};

test("roots/list → {roots: []}; sampling/createMessage and elicitation/create → -32601; a later call works", async () => {
  fake = fakeServerCommand({
    tools: [
      { name: "ask_roots", clientRequest: { method: "roots/list" } },
      { name: "ask_sampling", clientRequest: { method: "sampling/createMessage", params: sampling } },
      { name: "ask_elicitation", clientRequest: { method: "elicitation/create", params: elicitation } },
      { name: "echo", text: "still here: {{x}}" },
    ],
  });
  const logger = memoryLogger();
  client = new McpClient({ name: "v1-client", version: "0.1.0" }, { logger });
  await client.connect(new StdioChildTransport({ name: "asker", command: fake.command, args: fake.args, logger }));

  const [initialize] = await fake.control.waitForRequests("initialize");
  expect(initialize!.params.capabilities).toEqual({});

  expect(await answer("ask_roots")).toEqual({ isError: false, body: { result: { roots: [] } } });
  const sampled = await answer("ask_sampling");
  expect(sampled).toMatchObject({ isError: true, body: { error: { code: -32601 } } });
  expect(sampled.body.error.message).toContain("sampling/createMessage");
  const elicited = await answer("ask_elicitation");
  expect(elicited).toMatchObject({ isError: true, body: { error: { code: -32601 } } });
  expect(elicited.body.error.message).toContain("elicitation/create");

  expect((await client.callTool("echo", { x: 1 })).content).toEqual([{ type: "text", text: "still here: 1" }]);
  expect(client.connected).toBe(true);
  // The client never announced roots of its own.
  expect((await fake.control.notifications()).map((n) => n.method)).toEqual(["notifications/initialized"]);
  expect(logger.records.filter((r) => r.level === "error")).toEqual([]);
}, 60_000);
