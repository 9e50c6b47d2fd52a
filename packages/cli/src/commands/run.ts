/** `agentd run`: run one instruction to a final answer (the seed's `--mode once`). */
import { AgentdError, resolveConfig, type RunResult } from "@agentd/sdk";
import { defineCommand } from "citty";
import { agentFromConfig, modelFromConfig } from "../build-agent.ts";
import { EXIT } from "../exit-codes.ts";
import { abortOnSignals } from "../signals.ts";
import { stderrLogger } from "../telemetry.ts";
import { configArgs, overridesFrom, readInstruction, readJsonFile } from "./shared-args.ts";

export const runExamples = [
  'AGENT_INTELLIGENCE=http://127.0.0.1:11434/v1 AGENT_MODEL=qwen3 agentd run "Summarise today\'s inbox"',
  'agentd run --config agentd.json "Triage the open issues" --json',
  'echo "What changed?" | agentd run --max-turns 5 --deadline 2m',
  'agentd run "Extract the invoice" --output-schema invoice.schema.json',
];

export const runCommand = defineCommand({
  meta: { name: "run", description: "Run one instruction through the model and the MCP tools; print the result on stdout." },
  args: {
    instruction: { type: "positional", required: false, description: "What to do (read from stdin when omitted and stdin is not a terminal)" },
    ...configArgs,
    json: { type: "boolean", description: "Print a JSON envelope {runId, text|output, usage, turns, stopReason} instead of the text" },
    "run-id": { type: "string", description: "Stable idempotency id sent in _meta of every tool call (default: RUN_ID, else random)" },
    "output-schema": { type: "string", description: "JSON Schema file the final answer must satisfy (printed as JSON)" },
  },
  async run({ args }) {
    const instruction = await readInstruction(args.instruction);
    const resolved = await resolveConfig({ ...(args.config ? { configPath: args.config } : {}), overrides: overridesFrom(args) });
    const logger = stderrLogger();
    const model = modelFromConfig(resolved.config, resolved, logger);
    const outputSchema = args["output-schema"] ? await readJsonFile(args["output-schema"], "--output-schema") : undefined;
    const agent = agentFromConfig(resolved.config, model, logger);
    const signals = abortOnSignals();
    const started = performance.now();
    try {
      const result = await agent.run(instruction, {
        signal: signals.signal,
        runId: args["run-id"] ?? resolved.runId,
        ...(outputSchema ? { outputSchema } : {}),
      });
      process.stdout.write(formatResult(result, args.json === true, performance.now() - started));
      return EXIT.ok;
    } catch (e) {
      const sig = signals.received();
      if (sig && AgentdError.isInstance(e) && e.code === "E_ABORTED")
        throw new AgentdError("E_ABORTED", `interrupted by ${sig}`, { data: { signal: sig } });
      throw e;
    } finally {
      signals.dispose();
      await agent.close();
    }
  },
});

/** stdout: the text (or JSON output), or the JSON envelope. */
export function formatResult(result: RunResult, json: boolean, durationMs: number): string {
  if (json) {
    const envelope = {
      runId: result.runId,
      ...(result.output !== undefined ? { output: result.output } : { text: result.text ?? "" }),
      usage: result.usage,
      turns: result.turns,
      toolCalls: result.toolCalls,
      stopReason: result.stopReason,
      durationMs: Math.round(durationMs),
    };
    return `${JSON.stringify(envelope)}\n`;
  }
  const body = result.output !== undefined ? JSON.stringify(result.output, null, 2) : (result.text ?? "");
  return body.endsWith("\n") ? body : `${body}\n`;
}
