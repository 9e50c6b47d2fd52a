/**
 * Testing an agent end to end, offline: its MCP server is a fake (a real stdio child started from a spec),
 * its model is a fake gateway (real HTTP on 127.0.0.1 answering from a script). The test then asserts on
 * what the server received — here, that every tool call carried the run id the agent was given.
 */
import { afterEach, expect, test } from "bun:test";
import { createAgent, McpClient, RUN_ID_META_KEY, StdioChildTransport, type Agent } from "@agentd/sdk";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeMcpServerSpec, type FakeServerCommand } from "@agentd/testkit";
import { createModel } from "@agentd/adapters";

/** The mail server the agent talks to, as a spec: JSON only, so it can run as a child process. */
const MAIL_SERVER: FakeMcpServerSpec = {
  name: "mail",
  tools: [
    {
      name: "archive",
      description: "Archive a message by id",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      text: "archived {{id}}",
    },
    { name: "send", description: "Send a message", text: "the mail relay is down", isError: true },
  ],
  resources: [{ uri: "mail://inbox", name: "inbox", mimeType: "text/plain", text: "(empty)" }],
};

let mail: FakeServerCommand | undefined;
let gateway: FakeGateway | undefined;
let agent: Agent | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await agent?.close(); // stops the fake server child it started
  await client?.close();
  await gateway?.close();
  mail?.dispose();
  mail = gateway = agent = client = undefined;
});

test("the agent archives the message the model picked, and the server saw the run id", async () => {
  mail = fakeServerCommand(MAIL_SERVER);
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      // The model asks for the tool by its provider-safe name: `server__tool`.
      { toolCalls: [{ name: "mail__archive", arguments: { id: "m-17" } }] },
      { text: "Archived m-17." },
    ],
  });
  agent = createAgent({
    model: createModel({ dialect: "openai", baseURL: gateway.url, apiKey: "sk-test", model: "fake-model" }),
    mcpServers: { mail: mail.config },
  });

  const result = await agent.run("Archive the newsletter", { runId: "run-2026-11-29" });

  expect(result.text).toBe("Archived m-17.");
  const calls = mail.recordedRequests().filter((r) => r.method === "tools/call");
  // Every tools/call asks for progress (a progressToken), so a long tool that reports it is not cut off.
  expect(calls.map((c) => c.params)).toEqual([
    { name: "archive", arguments: { id: "m-17" }, _meta: { [RUN_ID_META_KEY]: "run-2026-11-29", progressToken: expect.any(Number) } },
  ]);
  expect(calls[0]?.meta[RUN_ID_META_KEY]).toBe("run-2026-11-29");
  // The tool's answer went back to the model (fenced as untrusted input).
  expect(gateway.requests[1]?.lastToolResult).toContain("archived m-17");
});

test("a failing tool is an observation for the model, not a crash", async () => {
  mail = fakeServerCommand(MAIL_SERVER);
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [{ toolCalls: [{ name: "mail__send", arguments: { to: "ops" } }] }, { text: "Could not send: the relay is down." }],
  });
  agent = createAgent({
    model: createModel({ dialect: "openai", baseURL: gateway.url, apiKey: "sk-test", model: "fake-model" }),
    mcpServers: { mail: mail.config },
  });

  const result = await agent.run("Tell ops");

  expect(result.text).toBe("Could not send: the relay is down.");
  expect(gateway.requests[1]?.lastToolResult).toContain("the mail relay is down");
});

test("change a resource while a client is subscribed: it is told, and reads the new content", async () => {
  mail = fakeServerCommand(MAIL_SERVER);
  client = new McpClient({ name: "inbox-watcher", version: "1.0.0" });
  await client.connect(new StdioChildTransport({ name: "mail", ...mail.config }));
  await client.subscribe("mail://inbox");
  const updated = new Promise<{ uri: string }>((resolve) => client!.on("resourceUpdated", resolve));

  // The control channel reaches into the running child.
  await mail.control.setResource("mail://inbox", "1 new message from ops");

  expect(await updated).toEqual({ uri: "mail://inbox" });
  expect((await client.readResource("mail://inbox")).contents).toEqual([
    { uri: "mail://inbox", mimeType: "text/plain", text: "1 new message from ops" },
  ]);
});
