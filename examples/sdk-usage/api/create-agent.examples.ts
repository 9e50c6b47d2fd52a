/**
 * Examples of the SDK's entry points, type-checked with the repository and run by `api.examples.test.ts`.
 * Doc comments include the regions between `// #region name` and `// #endregion name` ({@includeCode}).
 */
import { createModel } from "@agentd/adapters";
import { createAgent, createAgentFromConfig, parseConfig, tool } from "@agentd/sdk";
import { z } from "zod";

/** A one-shot agent with a typed tool, against the model at `baseURL` (an OpenAI-compatible server). */
export async function createAgentExample(baseURL: string): Promise<string | undefined> {
  // #region createAgent
  const weather = tool({
    name: "weather",
    description: "Today's weather in a city",
    parameters: z.object({ city: z.string() }),
    // `city` is a string here: the arguments were validated before execute runs.
    execute: ({ city }) => `sunny in ${city}`,
  });
  const agent = createAgent({
    model: createModel({ dialect: "openai", baseURL, model: "qwen3", apiKey: process.env.MODEL_API_KEY }),
    tools: [weather],
    limits: { maxTurns: 4 },
  });
  try {
    const { text } = await agent.run("What is the weather in Lisbon?");
    return text;
  } finally {
    await agent.close();
  }
  // #endregion createAgent
}

/** A call that waits for a person: the run ends waiting, saved; resumed with the decisions (here or in another process). */
export async function resumeExample(baseURL: string): Promise<string | undefined> {
  // #region resume
  const clean = tool({
    name: "clean",
    description: "Delete a path",
    parameters: z.object({ path: z.string() }),
    execute: ({ path }) => `deleted ${path}`,
  });
  const agent = createAgent({
    model: createModel({ dialect: "openai", baseURL, model: "qwen3" }),
    tools: [clean],
    // No onAsk: a call these rules hold makes the run end waiting, saved ($XDG_STATE_HOME/agentd/runs).
    approvals: { rules: [{ tool: "clean", decision: "ask" }] },
  });
  try {
    const first = await agent.run("Clean up /tmp/build");
    if (first.status !== "waiting") return first.text;
    // This process may exit now; any process on the same store resumes the run, once.
    const decisions = Object.fromEntries(
      (first.pending ?? []).map((q) => [q.id, { decision: "approve" as const, by: "ops", digest: q.digest }]),
    );
    const done = await agent.resume(first.runId, decisions);
    return done.text;
  } finally {
    await agent.close();
  }
  // #endregion resume
}

/** The same agent, streamed: text as it arrives, tool calls as they start and end, then the result. */
export async function streamExample(baseURL: string): Promise<string[]> {
  const seen: string[] = [];
  // #region stream
  const agent = createAgent({ model: createModel({ dialect: "openai", baseURL, model: "qwen3" }) });
  try {
    for await (const e of agent.stream("Write a haiku about pipes")) {
      if (e.type === "text-delta") seen.push(e.delta);
      if (e.type === "tool-call-start") seen.push(`[calling ${e.name}]`);
      if (e.type === "finish" && "error" in e) throw new Error(`${e.status}: ${e.error.message}`);
    }
  } finally {
    await agent.close();
  }
  // #endregion stream
  return seen;
}

/** An agent from an `agentd.json`-shaped object: parsed (one clear line per mistake), then built. */
export async function createAgentFromConfigExample(baseURL: string): Promise<string | undefined> {
  // #region createAgentFromConfig
  const config = parseConfig({
    model: { intelligence: baseURL, dialect: "openai", name: "qwen3" },
    instructions: "Answer in one sentence.",
    limits: { maxTurns: 2 },
  });
  const agent = createAgentFromConfig(config, { createModel, apiKey: process.env.MODEL_API_KEY });
  try {
    return (await agent.run("Say hello")).text;
  } finally {
    await agent.close();
  }
  // #endregion createAgentFromConfig
}

/** An agent served as its configuration's `serve` block says: here HTTP on loopback with an A2A card. */
export async function serveFromConfigExample(baseURL: string): Promise<{ name: string; version: string }> {
  // #region serveFromConfig
  const config = parseConfig({
    model: { intelligence: baseURL, dialect: "openai", name: "qwen3" },
    serve: { http: "127.0.0.1:0", a2a: { name: "inbox-agent", description: "Triages the inbox" } },
  });
  const agent = createAgentFromConfig(config, { createModel, version: "1.2.3" });
  try {
    // No argument: what `agentd serve` would serve for this config (serve.http, serve.a2a, serve.metrics …).
    const { url } = await agent.serve();
    const card = await fetch(new URL("/.well-known/agent-card.json", url)).then((r) => r.json());
    return { name: card.name, version: card.version };
  } finally {
    await agent.close();
  }
  // #endregion serveFromConfig
}
