/**
 * Reactivity over HTTP is a switch, off by default: an HTTP server is then used request/response only (no
 * GET stream is opened), and a subscription trigger on it is reported unavailable naming the switch. With
 * `capabilities.httpReactivity: true` the same trigger subscribes, reads and runs on every update.
 */
import { afterEach, expect, test } from "bun:test";
import { memoryLogger } from "../log.ts";
import { McpServer } from "../mcp/server/server.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "../transport/http-server/index.ts";
import { reply, scriptedModel } from "../loop/__fixtures__/scripted-model.ts";
import { parseConfig } from "../config/index.ts";
import { createAgentFromConfig } from "./create-agent-from-config.ts";
import type { Agent } from "./create-agent.ts";

let http: StreamableHttpServer | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await http?.close();
  agent = http = undefined;
});

/** An HTTP MCP server with one subscribable resource whose text the test changes. */
async function inboxServer(): Promise<{ server: McpServer; setText: (t: string) => void }> {
  const server = new McpServer({ name: "inbox", version: "1" });
  let text = "mail 1";
  server.resource({ uri: "file:///inbox.md", name: "inbox" }, (uri) => ({ contents: [{ uri, text }] }));
  http = await createStreamableHttpServer({ onsession: (t) => void server.connect(t) });
  return { server, setText: (t) => (text = t) };
}

const configFor = (url: string, capabilities: Record<string, unknown> = {}) =>
  parseConfig(
    {
      model: { intelligence: "http://127.0.0.1:9/v1", name: "scripted" },
      mcpServers: { inbox: { url } },
      triggers: { subscriptions: [{ server: "inbox", uri: "file:///inbox.md", instruction: "Triage: {{resource.text}}" }] },
      capabilities,
    },
    {},
  );

test("off by default: the subscription trigger on an HTTP server is unavailable, and the reason names the switch", async () => {
  await inboxServer();
  agent = createAgentFromConfig(configFor(http!.url.href), { model: scriptedModel([reply("never")]), logger: memoryLogger() });
  await agent.start().catch(() => {});
  const trigger = agent.triggers?.status().find((t) => t.kind === "subscription");
  expect(trigger?.state).toBe("unavailable");
  expect(trigger?.reason).toContain("reactivity over HTTP is off: set capabilities.httpReactivity to true");
  // Request/response still works: the server's resource is readable.
  expect((await agent.clients.get("inbox")!.readResource("file:///inbox.md")).contents[0]).toMatchObject({ text: "mail 1" });
});

test("switched on: the same trigger subscribes over the GET stream, reads at once and runs on each update", async () => {
  const { server, setText } = await inboxServer();
  const model = scriptedModel(Array.from({ length: 4 }, () => reply("done")));
  agent = createAgentFromConfig(configFor(http!.url.href, { httpReactivity: true }), { model, logger: memoryLogger() });
  const ends: string[] = [];
  let wake: (() => void) | undefined;
  const runEnds = async (n: number) => {
    while (ends.length < n) await new Promise<void>((r) => (wake = r));
  };
  agent.triggers!.on("run-end", (e) => (ends.push(e.runId), wake?.()));
  await agent.start();
  expect(agent.triggers!.status().find((t) => t.kind === "subscription")?.state).toBe("active");
  await runEnds(1);
  setText("mail 2");
  await server.notifyResourceUpdated("file:///inbox.md");
  await runEnds(2);
  const seen = model.requests.map((r) => JSON.stringify(r.messages));
  expect(seen[0]).toContain("mail 1");
  expect(seen[1]).toContain("mail 2");
});
