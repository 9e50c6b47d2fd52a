/**
 * The instruments a run records into: the GenAI and MCP client metrics of the semantic conventions
 * (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`, `mcp.client.operation.duration`) and
 * agentd's own (`agentd.runs`, `agentd.runs.active`, `agentd.run.duration`, `agentd.run.cost`,
 * `agentd.tool.call.duration` for tools that are not MCP, `agentd.trigger.lag`).
 */
import type { Counter, Histogram, Meter, UpDownCounter } from "@opentelemetry/api";

/** The instruments of {@link createRunInstruments}. */
export interface RunInstruments {
  runs: Counter;
  active: UpDownCounter;
  runDuration: Histogram;
  cost: Counter;
  tokens: Histogram;
  modelDuration: Histogram;
  mcpDuration: Histogram;
  toolDuration: Histogram;
  triggerLag: Histogram;
}

// The GenAI conventions' advised bucket boundaries (seconds; tokens).
const SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

/** Create the instruments on a meter. */
export function createRunInstruments(meter: Meter): RunInstruments {
  const seconds = (name: string, description: string) =>
    meter.createHistogram(name, { description, unit: "s", advice: { explicitBucketBoundaries: SECONDS } });
  return {
    runs: meter.createCounter("agentd.runs", { description: "Runs ended, by outcome (agentd.run.outcome, error.type)", unit: "{run}" }),
    active: meter.createUpDownCounter("agentd.runs.active", { description: "Runs in progress", unit: "{run}" }),
    runDuration: seconds("agentd.run.duration", "Wall-clock duration of a run"),
    cost: meter.createCounter("agentd.run.cost", { description: "Model spend of ended runs (needs model prices)", unit: "USD" }),
    tokens: meter.createHistogram("gen_ai.client.token.usage", {
      description: "Tokens used per model request, by gen_ai.token.type",
      unit: "{token}",
      advice: { explicitBucketBoundaries: TOKENS },
    }),
    modelDuration: seconds("gen_ai.client.operation.duration", "Duration of a model request"),
    mcpDuration: seconds("mcp.client.operation.duration", "Duration of an MCP tools/call, as the client sees it"),
    toolDuration: seconds("agentd.tool.call.duration", "Duration of a call to a tool that is not an MCP server's (subagents, self-tools)"),
    triggerLag: seconds("agentd.trigger.lag", "From a trigger's event to the start of the run it caused"),
  };
}
