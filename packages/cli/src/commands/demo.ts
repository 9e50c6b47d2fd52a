/**
 * `agentd demo`: the embedded default. A bundled MCP server as a real child process, the testkit's fake
 * gateway playing a scripted model over real HTTP on 127.0.0.1, and a real multi-turn tool-using run.
 * With AGENT_INTELLIGENCE (or --intelligence) set, the same configuration talks to a real model instead.
 */
import { type FakeGateway, startFakeGateway } from "@agentd/testkit";
import { type AgentdConfig, createAgentFromConfig, parseConfig, type RunResult } from "@agentd/sdk";
import { modelFromConfig } from "@agentd/sdk/agent";
import { chooseApiKey, runIdFrom } from "@agentd/sdk/config";
import { defineCommand } from "citty";
import { agentOptions } from "../agent-options.ts";
import { DEMO_INSTRUCTION, demoScript } from "../demo/demo-script.ts";
import { lateModel } from "../demo/late-model.ts";
import { EXIT } from "../exit-codes.ts";
import { endStdout } from "../exit-after-flush.ts";
import { DEMO_SERVER, demoServerCommand, demoServerLogger } from "../demo/prelaunch-server.ts";
import { stderrLogger } from "../telemetry.ts";
import { formatResult } from "../modes/format-result.ts";

export const demoExamples = [
  "agentd demo                      # offline: scripted model, bundled MCP server",
  "agentd demo --json               # the same, with usage and run id",
  "AGENT_INTELLIGENCE=http://127.0.0.1:11434/v1 AGENT_MODEL=qwen3 agentd demo   # a real model, same tools",
];

/** The demo's configuration: the bundled server as a stdio child of this same program. */
export function demoConfig(base: AgentdConfig): AgentdConfig {
  return {
    ...base,
    instructions: base.instructions ?? "You are an order-desk assistant. Use the tools to answer; quote the numbers the tools return.",
    mcpServers: { [DEMO_SERVER]: demoServerCommand() },
    limits: { maxTurns: 8, deadline: 120_000, ...base.limits },
  };
}

/** Wait for every promise; then rethrow the first failure, if any. */
async function settleAll(promises: Array<Promise<unknown> | undefined>): Promise<void> {
  for (const r of await Promise.allSettled(promises)) if (r.status === "rejected") throw r.reason;
}

export const demoCommand = defineCommand({
  meta: { name: "demo", description: "Run the embedded default offline: a bundled MCP server and a scripted model (no API key)." },
  args: {
    instruction: { type: "positional", required: false, description: `Instruction (default: "${DEMO_INSTRUCTION}")` },
    json: { type: "boolean", description: "Print the JSON envelope instead of the text" },
    intelligence: { type: "string", description: "Use a real model endpoint instead of the scripted one" },
    model: { type: "string", alias: "m", description: "Model name for --intelligence" },
  },
  async run({ args }) {
    // The demo never reads agentd.json (nor AGENT_CONFIG): it stays offline unless a model endpoint is named
    // by --intelligence or AGENT_INTELLIGENCE.
    const env = process.env;
    const intelligence = args.intelligence ?? (env.AGENT_INTELLIGENCE || undefined);
    const name = args.model ?? (env.AGENT_MODEL || undefined);
    const dialect = env.AGENT_DIALECT || undefined;
    // Without a model endpoint there is nothing to validate (and the configuration's schema is never built).
    const settings: AgentdConfig = intelligence
      ? parseConfig({ model: { intelligence, name: name || undefined, dialect: dialect || undefined } }, {}, "demo settings", {
          expand: false,
        })
      : {};
    const resolved = { config: settings, runId: runIdFrom({}, env) };
    // A real model's key is read as `agentd run` reads it; the scripted gateway takes none.
    const key = intelligence ? chooseApiKey(resolved.config.model, env) : undefined;
    const logger = stderrLogger();
    // The records of a server spawned before this logger existed (prelaunch-server.ts).
    demoServerLogger.bind(logger);
    const instruction = args.instruction ?? DEMO_INSTRUCTION;
    const runOptions = resolved.runId ? { runId: resolved.runId } : {};
    // The answer is all the demo prints: stdout is handed over while the agent closes (main.ts waits for it).
    const print = (result: RunResult, ms: number) => {
      process.stdout.write(formatResult(result, args.json === true, ms));
      endStdout();
    };
    if (resolved.config.model?.intelligence !== undefined) {
      const config = demoConfig(resolved.config);
      process.stderr.write(`agentd demo: real model at ${config.model?.intelligence} + bundled MCP server.\n`);
      const agent = createAgentFromConfig(
        config,
        agentOptions({ apiKey: key?.apiKey || undefined, apiKeyHint: key?.hint }, logger, {
          requireModel: true,
        }),
      );
      try {
        const started = performance.now();
        print(await agent.run(instruction, runOptions), performance.now() - started);
        return EXIT.ok;
      } finally {
        await agent.close();
      }
    }
    // Scripted: the bundled MCP server is a copy of this program, whose start-up is most of the demo's wall
    // time. So it was spawned before the CLI loaded (main.ts), the agent is built and starts connecting it
    // first; the fake gateway starts meanwhile, and the model is bound to the gateway's address once it listens.
    const config = demoConfig({ ...resolved.config, model: { ...resolved.config.model, name: "agentd-demo-scripted" } });
    const model = lateModel();
    const agent = createAgentFromConfig(config, agentOptions({}, logger, { model }));
    const started = performance.now();
    const connected = agent.connect();
    connected.catch(() => {}); // awaited below, after the gateway start (which may fail first)
    // One turn of the event loop lets the connection send \`initialize\` before the gateway's start and the
    // model's set-up take this thread: the server answers meanwhile instead of after them.
    await new Promise<void>((resolve) => setImmediate(resolve));
    let gateway: FakeGateway | undefined;
    try {
      gateway = await startFakeGateway({ dialect: "openai", script: demoScript() });
      process.stderr.write(
        "agentd demo: SCRIPTED model (fake gateway on 127.0.0.1, no API key) + bundled MCP server. Set AGENT_INTELLIGENCE to use a real model.\n",
      );
      model.bind(modelFromConfig({ ...config, model: { ...config.model, intelligence: gateway.url } }, agentOptions({}, logger)));
      await connected;
      print(await agent.run(instruction, runOptions), performance.now() - started);
      return EXIT.ok;
    } finally {
      // Closing waits for the MCP child to exit: the gateway closes meanwhile, once the child's stdin is ended
      // (agent.close() gets that far on promise callbacks alone, which all run before a setImmediate).
      const stopGateway = gateway && new Promise<void>((resolve) => setImmediate(resolve)).then(() => gateway?.close());
      await settleAll([agent.close(), stopGateway]);
    }
  },
});
