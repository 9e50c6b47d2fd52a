/**
 * The fake MCP server as a real stdio child (`fakeServerCommand` + the bin), driven by the SDK's
 * `McpClient` over `StdioChildTransport`: records, the control channel, progress, hang/cancel, crash.
 */
import { afterEach, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpClient, RUN_ID_META_KEY } from "@agentd/sdk/mcp";
import { StdioChildTransport } from "@agentd/sdk/transport";
import { memoryLogger } from "@agentd/sdk/telemetry";
import { fakeServerCommand, FAKE_MCP_SERVER_BIN, type FakeServerCommand } from "./fake-server-command.ts";
import type { FakeMcpServerSpec } from "./types.ts";

const T = 30_000;
const started: { client: McpClient; fake: FakeServerCommand }[] = [];
afterEach(async () => {
  for (const { client, fake } of started.splice(0)) {
    await client.close();
    fake.dispose();
  }
});

async function start(
  spec: FakeMcpServerSpec,
  runId = "run-1",
): Promise<{ client: McpClient; fake: FakeServerCommand; transport: StdioChildTransport }> {
  const fake = fakeServerCommand(spec);
  const transport = new StdioChildTransport({ name: "fake", command: fake.command, args: fake.args, logger: memoryLogger() });
  const client = new McpClient({ name: "stdio-test", version: "1.0.0" }, { runId });
  started.push({ client, fake });
  await client.connect(transport);
  return { client, fake, transport };
}

const once = <T>(subscribe: (l: (v: T) => void) => () => void) =>
  new Promise<T>((resolve) => {
    const off = subscribe((v) => (off(), resolve(v)));
  });

test(
  "serves the spec on stdio; the run id in _meta is in the record (control and file); progress arrives",
  async () => {
    const { client, fake } = await start(
      {
        name: "inbox-server",
        tools: [
          {
            name: "archive",
            text: "archived {{id}}",
            progress: [
              { progress: 1, total: 2 },
              { progress: 2, total: 2 },
            ],
          },
        ],
      },
      "run-7",
    );
    expect(client.serverInfo?.name).toBe("inbox-server");
    expect(fake.config).toEqual({ command: fake.command, args: fake.args });
    const steps: number[] = [];
    const result = await client.callTool("archive", { id: "m1" }, { onprogress: (p) => steps.push(p.progress) });
    expect(result.content).toEqual([{ type: "text", text: "archived m1" }]);
    expect(steps).toEqual([1, 2]);

    const [call] = await fake.control.waitForRequests("tools/call");
    expect(call!.meta[RUN_ID_META_KEY]).toBe("run-7");
    const fromFile = fake.recordedRequests().filter((r) => r.method === "tools/call");
    expect(fromFile).toHaveLength(1);
    expect(fromFile[0]!.meta[RUN_ID_META_KEY]).toBe("run-7");
    expect(fromFile[0]!.pid).toBeGreaterThan(0);
  },
  T,
);

test(
  "the control channel changes a resource in the child: the subscribed client is notified and reads it",
  async () => {
    // A tool from the start: a session only hears of tool changes if `tools` was declared at initialize.
    const { client, fake } = await start({
      tools: [{ name: "first" }],
      resources: [{ uri: "file:///inbox.md", mimeType: "text/markdown", text: "empty" }],
    });
    await client.subscribe("file:///inbox.md");
    const updated = once<{ uri: string }>((l) => client.on("resourceUpdated", l));
    expect(await fake.control.setResource("file:///inbox.md", "# one new mail")).toBe(1);
    expect(await updated).toEqual({ uri: "file:///inbox.md" });
    expect((await client.readResource("file:///inbox.md")).contents[0]).toMatchObject({ text: "# one new mail" });

    const changed = once<void>((l) => client.on("toolsListChanged", l));
    await fake.control.addTool({ name: "added", text: "hi" });
    await changed;
    expect((await client.callTool("added")).content).toEqual([{ type: "text", text: "hi" }]);
  },
  T,
);

test(
  "control setResources: several resources changed by one command, each subscriber notified and reading the new text",
  async () => {
    const uris = ["file:///a.txt", "file:///b.txt", "file:///c.txt"];
    const { client, fake } = await start({ resources: uris.map((uri) => ({ uri, text: "old" })) });
    await client.subscribe(uris[0] as string);
    await client.subscribe(uris[1] as string);
    const heard: string[] = [];
    const both = new Promise<void>((resolve) => {
      const off = client.on("resourceUpdated", ({ uri }) => {
        heard.push(uri);
        if (heard.length === 2) off(), resolve();
      });
    });
    // c.txt is not subscribed: changed, but nobody is told.
    expect(await fake.control.setResources(uris.map((uri) => ({ uri, content: `new ${uri}` })))).toBe(2);
    await both;
    expect(heard.toSorted()).toEqual(uris.slice(0, 2));
    for (const uri of uris) expect((await client.readResource(uri)).contents[0]).toMatchObject({ text: `new ${uri}` });
    // The notifications were sent before the command's reply, so before these reads' answers: none for c.txt.
    expect(heard).toHaveLength(2);
  },
  T,
);

test(
  "hang: the client's abort reaches the child as notifications/cancelled, recorded as interrupted",
  async () => {
    const { client, fake } = await start({ tools: [{ name: "stuck", hang: true }] });
    const abort = new AbortController();
    const call = client.callTool("stuck", {}, { signal: abort.signal });
    await fake.control.waitForRequests("tools/call");
    abort.abort();
    await expect(call).rejects.toMatchObject({ code: "E_ABORTED" });
    const [cancellation] = await fake.control.waitForCancellations();
    expect(cancellation).toMatchObject({ tool: "stuck", reason: "request aborted by the caller" });
    await client.ping();
  },
  T,
);

test(
  "crash: the child exits with the given code mid-call; the record file still holds the call",
  async () => {
    const { client, fake, transport } = await start({ tools: [{ name: "boom", crash: { exitCode: 3 } }] });
    const closed = once<void>((l) => client.on("close", l));
    await expect(client.callTool("boom", { why: "test" })).rejects.toMatchObject({ code: "E_CONNECTION_CLOSED" });
    await closed;
    expect(transport.exitStatus).toEqual({ code: 3, signal: null });
    expect(fake.recordedRequests().find((r) => r.method === "tools/call")?.params.arguments).toEqual({ why: "test" });
  },
  T,
);

test("a bad spec file: one line on stderr, exit code 2", () => {
  const fake = fakeServerCommand({});
  try {
    writeFileSync(fake.specPath, JSON.stringify({ tools: [{ name: "x", handler: "nope" }] }));
    const bad = spawnSync(process.execPath, [FAKE_MCP_SERVER_BIN, fake.specPath], { encoding: "utf8", timeout: T });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(
      "fake-mcp-server: fake MCP server spec: tools[0].handler is code and cannot come from JSON; use createFakeMcpServer in the test process\n",
    );
    const missing = spawnSync(process.execPath, [FAKE_MCP_SERVER_BIN, join(fake.dir, "absent.json")], { encoding: "utf8", timeout: T });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toStartWith("fake-mcp-server: cannot read spec ");
    expect(() => fakeServerCommand({ tools: [{ name: "x", handler: () => ({ content: [] }) }] })).toThrow(
      "is code and cannot come from JSON",
    );
  } finally {
    fake.dispose();
  }
});
