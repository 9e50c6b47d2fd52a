/**
 * The agentd configuration (`agentd.json`), as one valibot schema. The file accepts the ecosystem's usual
 * `mcpServers` shape (`command`/`args`/`env`/`cwd`, or `url`/`headers`). Unknown top-level keys are
 * rejected so a typo is caught rather than silently ignored. Each config group's schema lives in its own
 * file (`model-schema.ts`, `servers-schema.ts`, `limits-schema.ts`, `triggers-schema.ts`, `serve-schema.ts`,
 * `capabilities-schema.ts`, `durability-schema.ts`, `prompts-schema.ts`, `approvals-schema.ts`); this one joins them.
 */
import * as v from "valibot";
import { ApprovalsConfigSchema } from "./approvals-schema.ts";
import { CapabilitiesSchema } from "./capabilities-schema.ts";
import { DurabilitySchema } from "./durability-schema.ts";
import { LimitsSchema, ScopeSchema } from "./limits-schema.ts";
import { ModelConfigSchema } from "./model-schema.ts";
import { PromptsConfigSchema } from "./prompts-schema.ts";
import { positiveInt } from "./schema-values.ts";
import { ServeSchema } from "./serve-schema.ts";
import { A2aAgentConfigSchema, McpServerConfigSchema, SERVER_NAME } from "./servers-schema.ts";
import { TriggersSchema } from "./triggers-schema.ts";

/** The whole `agentd.json` file: the model, instructions, MCP servers, A2A agents, limits, triggers, serving, capabilities and durability. Unknown keys are refused. Parse with `parseConfig` to get one clear line per mistake. */
export const ConfigSchema = v.strictObject({
  $schema: v.optional(v.string()),
  model: v.optional(ModelConfigSchema),
  instructions: v.optional(v.string()),
  mcpServers: v.optional(v.record(SERVER_NAME, McpServerConfigSchema)),
  /** Remote A2A agents the model may delegate to (tools `a2a:NAME`; docs/a2a.md). */
  a2aAgents: v.optional(v.record(SERVER_NAME, A2aAgentConfigSchema)),
  limits: v.optional(LimitsSchema),
  scope: v.optional(ScopeSchema),
  triggers: v.optional(TriggersSchema),
  serve: v.optional(ServeSchema),
  capabilities: v.optional(CapabilitiesSchema),
  /** Prompts `agentd serve` offers (prompts/list, prompts/get, completion/complete; agent.run `{ prompt, arguments }`). */
  prompts: v.optional(PromptsConfigSchema),
  durability: v.optional(DurabilitySchema),
  /** Which tool calls wait for a person's decision (docs/approvals.md). */
  approvals: v.optional(ApprovalsConfigSchema),
  /** Where traces are read: `traceUrl` links a run's trace id in the console to the OTLP backend's page (docs/console.md). */
  telemetry: v.optional(
    v.strictObject({
      traceUrl: v.optional(
        v.pipe(
          v.string(),
          v.check(
            (t) => /^https?:\/\/[^\s{}]+/.test(t) && t.includes("{traceId}") && URL.canParse(t.replaceAll("{traceId}", "0")),
            "an http(s) URL template with {traceId} where the trace id goes (docs/console.md)",
          ),
        ),
      ),
    }),
  ),
  subagents: v.optional(
    v.strictObject({
      maxDepth: v.optional(positiveInt),
      maxChildren: v.optional(positiveInt),
      maxRestarts: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    }),
  ),
});

// The output types (`AgentdConfig` and its parts) are declared in ./types.generated.ts, generated from these schemas by
// scripts/declared-types.ts and checked equal to what valibot infers (./types.generated.test.ts).
export type { AgentdConfig, McpServerConfig, ModelConfig } from "./types.generated.ts";
