/**
 * Proof: the official `@modelcontextprotocol/sdk` `Client` over its own `StdioClientTransport` against our
 * server (the testkit's fake server as a real stdio child, built on our `McpServer` and
 * `StdioServerTransport`): tools, resources with a live subscription, prompts and completions.
 */
import { afterEach, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { fakeServerCommand, type FakeServerCommand } from "@agentd/testkit";
import type { FakeMcpServerSpec } from "@agentd/testkit";

let client: Client | undefined;
let fake: FakeServerCommand | undefined;
afterEach(async () => {
  await client?.close();
  fake?.dispose();
  client = fake = undefined;
});

const SPEC: FakeMcpServerSpec = {
  name: "proof-server",
  version: "1.2.3",
  tools: [
    {
      name: "add",
      description: "Adds",
      inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
      text: "{{a}} plus {{b}}",
    },
    { name: "fail", text: "nope", isError: true },
  ],
  resources: [{ uri: "file:///notes.md", name: "notes", mimeType: "text/markdown", text: "# v1" }],
  resourceTemplates: [{ uriTemplate: "db://rows/{id}", name: "row", text: "row {{id}}", complete: { id: ["7", "70", "8"] } }],
  prompts: [
    {
      name: "triage",
      description: "Triage a ticket",
      arguments: [{ name: "severity", required: true }],
      messages: [{ role: "user", text: "Triage at {{severity}}" }],
      complete: { severity: ["low", "high", "highest"] },
    },
  ],
};

test("list and call tools, read, subscribe and receive an update, get prompts, complete arguments", async () => {
  fake = fakeServerCommand(SPEC);
  const transport = new StdioClientTransport({ command: fake.command, args: fake.args, stderr: "pipe" });
  client = new Client({ name: "official-sdk-client", version: "1.0.0" });
  await client.connect(transport);
  expect(client.getServerVersion()).toEqual({ name: "proof-server", version: "1.2.3" });
  expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: { subscribe: true }, prompts: {}, completions: {} });

  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toEqual(["add", "fail"]);
  expect(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })).toEqual({ content: [{ type: "text", text: "2 plus 3" }] });
  expect(await client.callTool({ name: "fail", arguments: {} })).toMatchObject({ isError: true });
  // Our server checks arguments against the tool's inputSchema: a tool-domain error, not a crash.
  expect(await client.callTool({ name: "add", arguments: { a: "x" } })).toMatchObject({ isError: true });
  await expect(client.callTool({ name: "missing", arguments: {} })).rejects.toThrow(/Unknown tool/);

  expect((await client.listResources()).resources).toEqual([{ uri: "file:///notes.md", name: "notes", mimeType: "text/markdown" }]);
  expect((await client.readResource({ uri: "db://rows/9" })).contents).toEqual([{ uri: "db://rows/9", text: "row 9" }]);
  const updated = new Promise<string>((resolve) =>
    client!.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)),
  );
  const listChanged = new Promise<void>((resolve) =>
    client!.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()),
  );
  await client.subscribeResource({ uri: "file:///notes.md" });
  expect(await fake.control.setResource("file:///notes.md", "# v2")).toBe(1);
  expect(await updated).toBe("file:///notes.md");
  expect((await client.readResource({ uri: "file:///notes.md" })).contents).toEqual([
    { uri: "file:///notes.md", mimeType: "text/markdown", text: "# v2" },
  ]);
  await fake.control.setResource("file:///new.txt", "fresh");
  await listChanged;
  await client.unsubscribeResource({ uri: "file:///notes.md" });

  expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["triage"]);
  expect((await client.getPrompt({ name: "triage", arguments: { severity: "high" } })).messages).toEqual([
    { role: "user", content: { type: "text", text: "Triage at high" } },
  ]);
  await expect(client.getPrompt({ name: "triage" })).rejects.toThrow(/severity/);
  expect(
    (await client.complete({ ref: { type: "ref/prompt", name: "triage" }, argument: { name: "severity", value: "hi" } })).completion,
  ).toEqual({ values: ["high", "highest"], total: 2, hasMore: false });
  expect(
    (await client.complete({ ref: { type: "ref/resource", uri: "db://rows/{id}" }, argument: { name: "id", value: "7" } })).completion
      .values,
  ).toEqual(["7", "70"]);
  await client.ping();

  const subscribe = (await fake.control.requests("resources/subscribe"))[0];
  expect(subscribe?.params).toEqual({ uri: "file:///notes.md" });
  const pid = transport.pid;
  await client.close();
  client = undefined;
  expect(() => process.kill(pid!, 0)).toThrow();
}, 60_000);
