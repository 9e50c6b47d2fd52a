/**
 * `tool()`: a tool defined in code, typed from any Standard Schema validator (valibot, zod, arktype …).
 * The model is offered the schema's JSON Schema (given explicitly, or rendered by the validator when it
 * implements Standard JSON Schema); every call's arguments are validated before `execute` runs, and what
 * `execute` returns is checked against `outputSchema` when there is one. Validation failures and thrown
 * errors come back to the model as tool errors, never as a crash of the run.
 *
 * ```ts
 * import { createAgent, tool } from "@agentd/sdk";
 * import { z } from "zod";
 * const weather = tool({
 *   name: "get_weather",
 *   description: "Current weather for a city",
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `${city}: 21°C`,
 * });
 * const agent = createAgent({ model, tools: [weather] });
 * ```
 */
import { AgentdError } from "../wire/errors.ts";
import type { ToolCallContext, ToolDescriptor } from "../loop/tools.ts";
import type { NeedsApproval } from "../loop/approvals/approval-types.ts";
import { formatIssues, isStandardSchema, type StandardSchemaV1, standardJsonSchema } from "./standard-schema.ts";

/**
 * MCP's tool name rule (2025-11-25, "Tool names": 1–128 of letters, digits, `_`, `-`, `.` and `/`) without
 * the `/`: `server/tool` names are the MCP servers' tools, so a local tool can never shadow one (or be
 * reported as one in telemetry).
 */
const TOOL_NAME = /^[A-Za-z0-9_\-.]{1,128}$/;

/** What `execute` may return: the structured value its `outputSchema` accepts, or any value without one. */
export type ToolReturn<O extends StandardSchemaV1 | undefined> = O extends StandardSchemaV1 ? StandardSchemaV1.InferInput<O> : unknown;

/** The definition {@link tool} takes. */
export interface ToolDefinition<P extends StandardSchemaV1, O extends StandardSchemaV1 | undefined = undefined> {
  /** The tool's name (up to 128 of `A-Za-z0-9_-.`; no `/`, which marks MCP servers' tools). Optional in a record. */
  name?: string;
  /** What the tool does, for the model. */
  description: string;
  /** The arguments: any Standard Schema validator of an object. */
  parameters: P;
  /** The arguments' JSON Schema for the model, when the validator cannot render one (valibot 1.x). */
  jsonSchema?: Record<string, unknown>;
  /** The result's schema: the value `execute` returns is validated and becomes `structuredContent`. */
  outputSchema?: O;
  /** The result's JSON Schema, when `outputSchema`'s validator cannot render one (optional: it is only advertised). */
  outputJsonSchema?: Record<string, unknown>;
  /** Also offer the tool on the agent's served MCP endpoints (`agent.serve()`, `agentd serve`). Default false. */
  serve?: boolean;
  /**
   * Ask a person before each call (docs/approvals.md): `true` for every call, or a function of the validated
   * arguments saying whether this one needs it. A call nobody approves is not made; the model reads the denial.
   * An `allow` rule in `approvals` does not waive it; a `deny` rule still denies.
   */
  needsApproval?:
    | boolean
    | ((input: StandardSchemaV1.InferOutput<P>, context: { runId: string; toolCallId: string }) => boolean | Promise<boolean>);
  /**
   * Run the tool. `input` is the validated arguments. Return a string (the text the model reads) or any
   * JSON value (sent as JSON); with `outputSchema`, the structured result. Throw to report a failure.
   */
  execute(input: StandardSchemaV1.InferOutput<P>, context: ToolCallContext): ToolReturn<O> | Promise<ToolReturn<O>>;
}

/** One call's result: what the model reads, and the validated structured result when there is an `outputSchema`. */
export interface LocalToolResult<S = unknown> {
  text: string;
  isError: boolean;
  structuredContent?: S;
}

/** A tool defined in code (made by {@link tool}). */
export interface LocalTool<
  P extends StandardSchemaV1 = StandardSchemaV1,
  O extends StandardSchemaV1 | undefined = StandardSchemaV1 | undefined,
> {
  readonly kind: "agentd.local-tool";
  readonly name: string | undefined;
  readonly description: string;
  /** The JSON Schema the model (and MCP clients) are offered. */
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema: Record<string, unknown> | undefined;
  readonly serve: boolean;
  readonly definition: ToolDefinition<P, O>;
  /**
   * Validate `args`, run `execute`, validate its result. Never throws for the tool's own failures
   * (invalid arguments, a throw in `execute`, an invalid result): they are `isError` results. Rejects only
   * when `context.signal` is aborted.
   */
  invoke(
    args: unknown,
    context: ToolCallContext,
  ): Promise<LocalToolResult<O extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<O> : never>>;
}

const usage = (message: string) => new AgentdError("E_USAGE", message);

function inputJsonSchema(name: string, def: ToolDefinition<StandardSchemaV1, StandardSchemaV1 | undefined>): Record<string, unknown> {
  const schema = def.jsonSchema ?? standardJsonSchema(def.parameters, "input");
  if (schema === undefined)
    throw usage(
      def.parameters["~standard"].vendor === "valibot"
        ? `tool ${name}: valibot parameters need @valibot/to-json-schema installed to be offered to the model (npm i @valibot/to-json-schema), or pass jsonSchema: { type: "object", properties: … }`
        : `tool ${name}: its ${def.parameters["~standard"].vendor} parameters cannot render JSON Schema for the model; pass jsonSchema: { type: "object", properties: … } (or a validator that implements Standard JSON Schema, such as zod 4 or arktype)`,
    );
  if (schema.type !== "object")
    throw usage(
      `tool ${name}: the parameters' JSON Schema must describe an object (type: "object"), got type ${JSON.stringify(schema.type)}`,
    );
  return schema;
}

/** Text the model reads for a value `execute` returned. */
const textOf = (value: unknown): string =>
  typeof value === "string" ? value : value === undefined ? "" : (JSON.stringify(value) ?? String(value));

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Define a typed tool. Throws `E_USAGE` at once for a definition the model could not be offered.
 *
 * Example:
 * {@includeCode ../../../../examples/sdk-usage/api/create-agent.examples.ts#createAgent}
 */
export function tool<P extends StandardSchemaV1, O extends StandardSchemaV1 | undefined = undefined>(
  definition: ToolDefinition<P, O>,
): LocalTool<P, O> {
  const label = definition.name ?? "(unnamed)";
  if (definition.name !== undefined && !TOOL_NAME.test(definition.name))
    throw usage(
      definition.name.includes("/")
        ? `tool ${JSON.stringify(definition.name)}: "server/tool" names belong to the MCP servers' tools; name a local tool without "/"`
        : `tool ${JSON.stringify(definition.name)}: a tool name is 1–128 of letters, digits, "_", "-" and "."`,
    );
  if (!isStandardSchema(definition.parameters))
    throw usage(`tool ${label}: parameters must be a Standard Schema validator (valibot, zod, arktype …)`);
  if (definition.outputSchema !== undefined && !isStandardSchema(definition.outputSchema))
    throw usage(`tool ${label}: outputSchema must be a Standard Schema validator`);
  if (typeof definition.execute !== "function") throw usage(`tool ${label}: execute must be a function`);
  const def = definition as unknown as ToolDefinition<StandardSchemaV1, StandardSchemaV1 | undefined>;
  const inputSchema = inputJsonSchema(label, def);
  const out = def.outputSchema;
  const outputSchema = def.outputJsonSchema ?? (out ? standardJsonSchema(out, "output") : undefined);

  const invoke = async (args: unknown, context: ToolCallContext): Promise<LocalToolResult<never>> => {
    const name = definition.name ?? label;
    let checked: StandardSchemaV1.Result<unknown>;
    try {
      checked = await def.parameters["~standard"].validate(args);
    } catch (e) {
      // A validator is not supposed to throw; one that does fails the call, not the run.
      return { text: `invalid arguments for "${name}": the validator failed: ${errorText(e)}`, isError: true };
    }
    if (checked.issues) return { text: `invalid arguments for "${name}": ${formatIssues(checked.issues)}`, isError: true };
    let value: unknown;
    try {
      value = await def.execute(checked.value, context);
    } catch (e) {
      if (context.signal.aborted) throw e;
      return { text: `tool "${name}" failed: ${errorText(e)}`, isError: true };
    }
    if (!out) return { text: textOf(value), isError: false };
    const result = await out["~standard"].validate(value);
    if (result.issues) return { text: `tool "${name}" returned an invalid result: ${formatIssues(result.issues)}`, isError: true };
    const structured = result.value;
    if (typeof structured !== "object" || structured === null || Array.isArray(structured))
      return { text: `tool "${name}" returned an invalid result: structured content must be a JSON object`, isError: true };
    return { text: textOf(structured), isError: false, structuredContent: structured as never };
  };

  return {
    kind: "agentd.local-tool",
    name: definition.name,
    description: definition.description,
    inputSchema,
    outputSchema,
    serve: definition.serve === true,
    definition,
    invoke: invoke as LocalTool<P, O>["invoke"],
  };
}

/** Whether `value` was made by {@link tool}. */
export const isLocalTool = (value: unknown): value is LocalTool =>
  typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "agentd.local-tool";

/** The descriptor the loop offers for a local tool named `name`. */
export const describeLocalTool = (name: string, t: LocalTool): ToolDescriptor => ({
  name,
  description: t.description,
  inputSchema: t.inputSchema,
  outputSchema: t.outputSchema,
  ...(t.definition.needsApproval ? { needsApproval: needsApprovalOf(t) } : {}),
});

/** The tool's `needsApproval` over raw arguments: a function sees them validated; arguments that fail validation are never run, so they need no approval. */
function needsApprovalOf(t: LocalTool): NeedsApproval {
  const own = t.definition.needsApproval;
  if (typeof own !== "function") return own === true;
  return async (args, context) => {
    const checked = await t.definition.parameters["~standard"].validate(args);
    return checked.issues ? false : own(checked.value, context);
  };
}
