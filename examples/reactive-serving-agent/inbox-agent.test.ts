/**
 * The example, run for real: the agent from inbox-agent.ts against a scripted fake gateway and a fake MCP
 * inbox server (a real stdio child) from @agentd/testkit, and called over Streamable HTTP by the official
 * MCP SDK client.
 */
import { afterEach, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand } from "@agentd/testkit";
import type { Agent } from "@agentd/sdk";
import { startInboxAgent } from "./inbox-agent.ts";

let gateway: FakeGateway | undefined;
let inbox: FakeServerCommand | undefined;
let agent: Agent | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  await agent?.close();
  await gateway?.close();
  inbox?.dispose();
  [gateway, inbox, agent, client] = [undefined, undefined, undefined, undefined];
});

const userText = (messages: Array<{ role: string; text: string }>) => messages.find((m) => m.role === "user")?.text ?? "";

test("triages on every inbox change, answers agent.run over HTTP, drains and closes", async () => {
  const triaged: string[] = [];
  let wake = () => {};
  gateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [
      (req) => {
        const text = userText(req.messages);
        if (text.startsWith("Triage this inbox:")) {
          triaged.push(text);
          wake();
          return { text: `triaged ${text.split("\n").length - 1} item(s)` };
        }
        return { text: `asked: ${text}` };
      },
    ],
  });
  inbox = fakeServerCommand({ resources: [{ uri: "file:///inbox.md", text: "- invoice from ACME" }] });
  const started = await startInboxAgent({ intelligence: gateway.url, model: "scripted", inbox: inbox.config, listen: "127.0.0.1:0" });
  agent = started.agent;
  const triagedAtLeast = async (n: number) => {
    while (triaged.length < n) await new Promise<void>((r) => (wake = r));
  };

  // Started: the first read runs once.
  await triagedAtLeast(1);
  expect(triaged[0]).toContain("- invoice from ACME");
  // A change of the resource wakes it again.
  await inbox.control.setResource("file:///inbox.md", { text: "- invoice from ACME\n- outage report" });
  await triagedAtLeast(2);
  expect(triaged[1]).toContain("- outage report");

  // Served: another agent calls it over Streamable HTTP.
  client = new Client({ name: "example-caller", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(started.url));
  const result = await client.callTool({ name: "agent.run", arguments: { instruction: "What is in the inbox?" } });
  expect(result.content).toEqual([{ type: "text", text: "asked: What is in the inbox?" }]);
  const status = await client.readResource({ uri: "agent://status" });
  const parsed = JSON.parse((status.contents[0] as { text: string }).text);
  expect(parsed.triggers.map((t: { id: string; state: string }) => [t.id, t.state])).toEqual([["sub:inbox:file:///inbox.md", "active"]]);

  // Drained: nothing in flight, closed, and it refuses new work.
  expect(agent.status()).toMatchObject({ state: "running", model: true, serving: 1 });
  await agent.drain(5_000, "test");
  expect(agent.status().state).toBe("closed");
  await expect(agent.run("too late")).rejects.toThrow("the agent is closed");
}, 60_000);
