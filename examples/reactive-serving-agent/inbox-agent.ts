/**
 * A reactive, serving agent in one file: it triages the inbox whenever the inbox resource changes, and
 * serves itself as an MCP server (agent.run, agent://status) on Streamable HTTP. SIGTERM drains it: runs
 * in flight finish and are answered, then everything closes.
 *
 *   AGENT_INTELLIGENCE=http://127.0.0.1:11434/v1 AGENT_MODEL=qwen3 INBOX_SERVER="npx -y my-inbox-mcp" bun inbox-agent.ts
 */
import { createModel } from "@agentd/adapters";
import { createAgentFromConfig, parseConfig, type Agent } from "@agentd/sdk";
import { parseListen } from "@agentd/sdk/agent";

/** Where the model and the inbox server are, and where to serve. */
export interface InboxAgentOptions {
  intelligence: string;
  model: string;
  inbox: { command: string; args: string[] };
  /** HOST:PORT to serve on (port 0 picks a free one). */
  listen: string;
}

/** Build the agent, arm its trigger and serve it. */
export async function startInboxAgent(o: InboxAgentOptions): Promise<{ agent: Agent; url: URL }> {
  const config = parseConfig({
    model: { intelligence: o.intelligence, name: o.model },
    instructions: "You triage an inbox: answer with one line per item, most urgent first.",
    mcpServers: { inbox: o.inbox },
    triggers: { subscriptions: [{ server: "inbox", uri: "file:///inbox.md", instruction: "Triage this inbox:\n{{resource.text}}" }] },
  });
  const agent = createAgentFromConfig(config, { createModel });
  await agent.start(); // connect, subscribe, read once: a change made while we were down is run now
  const { url } = await agent.serve({ http: parseListen(o.listen) }); // loopback: no TLS or token needed
  return { agent, url: url! };
}

if (import.meta.main) {
  const [command = "inbox-mcp", ...args] = (process.env.INBOX_SERVER ?? "").split(" ").filter(Boolean);
  const { agent, url } = await startInboxAgent({
    intelligence: process.env.AGENT_INTELLIGENCE ?? "http://127.0.0.1:11434/v1",
    model: process.env.AGENT_MODEL ?? "qwen3",
    inbox: { command, args },
    listen: process.env.LISTEN ?? "127.0.0.1:7777",
  });
  console.error(`serving on ${url.href}`);
  process.once("SIGTERM", () => void agent.drain(30_000, "SIGTERM"));
}
