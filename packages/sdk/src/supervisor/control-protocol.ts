/**
 * The internal control protocol between a parent and a subagent: JSON-RPC 2.0 in length-prefixed frames on
 * a private pipe (fd 3 of the child). Never the child's stdout, never exposed outward (so
 * the public tasks surface is a translation over the handle table, not this wire).
 *
 * Messages:
 * - `start` (request, parent → child): everything the child needs to build its agent. The answer is the
 *   child's result, or an error whose `data` carries `{ code, usage, turns, stopReason }`.
 * - `progress` (notification, child → parent): cumulative usage, turns and tool calls of this attempt.
 * - `cancel` (notification, parent → child): stop, drain, answer `start` with `E_ABORTED`, exit.
 *
 * The API key is never in a message: the child reads it from its environment (`apiKeyEnv` names the variable).
 */
import * as v from "valibot";
import { ModelConfigSchema } from "../config/model-schema.ts";
import { McpServerConfigSchema } from "../config/servers-schema.ts";
import type { McpServerConfig, ModelConfig } from "../config/types.generated.ts";
import type { RunLimits } from "../loop/budget.ts";
import type { Usage } from "../model/language-model.ts";
import type { RunScope } from "../loop/scope.ts";

/** Version of the control protocol; a child refuses a `start` of another version. */
export const CONTROL_PROTOCOL_VERSION = 1;

/** Method names of the control protocol. */
export const CONTROL = { start: "start", progress: "progress", cancel: "cancel" } as const;

/** Environment variable the supervisor sets on a child to carry the model's API key. */
export const SUBAGENT_API_KEY_ENV = "AGENT_API_KEY";

/** Limits of the child's subtree (its own spawns). */
export interface SubtreeSettings {
  maxDepth: number;
  maxChildren: number;
  maxRestarts: number;
  /** The child's own shutdown grace for its children (ms). */
  graceMs: number;
}

/** Params of `start`: the spawn payload plus what the parent knows about building an agent. */
export interface StartParams {
  protocol: number;
  /** The handle id in the parent's table. */
  id: string;
  /** Stable idempotency id, the same on every attempt. */
  runId: string;
  /** 1 on the first attempt, 2 on the first restart, … */
  attempt: number;
  /** The child's depth (the root agent is 0). */
  depth: number;
  instruction: string;
  seed?: unknown;
  /** Every scope on the way down; a tool must pass all of them (so never wider than any ancestor's). */
  scopes: RunScope[];
  /** What is left of the child's limits for this attempt. */
  limits: RunLimits;
  /** Model settings (dialect, endpoint, name…); never the key. */
  model: ModelConfig;
  /** Only the servers the child's scope can reach. */
  mcpServers: Record<string, McpServerConfig>;
  /** System instructions of the child. */
  instructions?: string;
  outputSchema?: Record<string, unknown>;
  subagents: SubtreeSettings;
  /** The parent's span that spawned this child: the child's run span is its child. */
  traceContext?: { traceparent: string; tracestate?: string };
}

/** The answer to `start` when the child reached a final answer. */
export interface ChildResult {
  text?: string;
  output?: unknown;
  usage: Usage;
  turns: number;
  toolCalls: number;
  stopReason: string;
}

/** `data` of the error answer to `start`. */
export interface ChildErrorData {
  /** The local error code (`E_BUDGET_TOKENS`, `E_ABORTED`, `E_RUN_FAILED`, `E_UPSTREAM`…). */
  code: string;
  usage?: Usage;
  turns?: number;
  stopReason?: string;
}

/** Params of `progress` (cumulative for the attempt). */
export interface ProgressParams {
  usage: Usage;
  turns: number;
  toolCalls: number;
  message?: string;
}

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const positive = v.pipe(
  v.number(),
  v.minValue(0),
  v.check((n) => n > 0, "a positive number"),
);
const LimitsSchema = v.object({
  maxTurns: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  maxTokens: v.optional(positive),
  deadlineMs: v.optional(positive),
  maxCostUsd: v.optional(positive),
  toolTimeoutMs: v.optional(positive),
});

/** Schema of `start` params (validated by the child: a parent of another build must fail loudly). */
const StartParamsSchema = v.object({
  protocol: v.literal(CONTROL_PROTOCOL_VERSION),
  id: v.pipe(v.string(), v.minLength(1)),
  runId: v.pipe(v.string(), v.minLength(1)),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
  depth: v.pipe(v.number(), v.integer(), v.minValue(1)),
  instruction: v.pipe(v.string(), v.minLength(1)),
  seed: v.optional(v.unknown()),
  scopes: v.array(v.object({ allow: v.optional(v.array(v.string())) })),
  limits: LimitsSchema,
  model: ModelConfigSchema,
  mcpServers: v.record(v.string(), McpServerConfigSchema),
  instructions: v.optional(v.string()),
  outputSchema: v.optional(v.record(v.string(), v.unknown())),
  subagents: v.object({ maxDepth: count, maxChildren: count, maxRestarts: count, graceMs: positive }),
  traceContext: v.optional(v.object({ traceparent: v.string(), tracestate: v.optional(v.string()) })),
});

/**
 * The parent sends its model and server settings as validated, so their durations are milliseconds; the
 * config schema takes durations only with a unit. Give them theirs (`120000` → `"120000ms"`) before the check.
 */
function withDurationUnits(params: unknown): unknown {
  if (!params || typeof params !== "object") return params;
  const p = params as Record<string, unknown>;
  const ms = (o: unknown, ...keys: string[]): unknown => {
    if (!o || typeof o !== "object" || Array.isArray(o)) return o;
    const copy = { ...(o as Record<string, unknown>) };
    for (const k of keys) if (typeof copy[k] === "number") copy[k] = `${copy[k]}ms`;
    return copy;
  };
  const server = (entry: unknown): unknown => {
    const e = ms(entry, "timeout", "maxTotalTimeout") as Record<string, unknown> | unknown;
    if (!e || typeof e !== "object") return e;
    const sampling = (e as Record<string, unknown>).sampling as Record<string, unknown> | undefined;
    if (!sampling || typeof sampling !== "object" || !sampling.budget) return e;
    return { ...(e as Record<string, unknown>), sampling: { ...sampling, budget: ms(sampling.budget, "window") } };
  };
  const servers =
    p.mcpServers && typeof p.mcpServers === "object"
      ? Object.fromEntries(Object.entries(p.mcpServers).map(([n, e]) => [n, server(e)]))
      : p.mcpServers;
  return { ...p, model: ms(p.model, "timeout"), mcpServers: servers };
}

/** Validate `start` params; a one-line reason on failure. */
export function parseStartParams(params: unknown): { ok: true; value: StartParams } | { ok: false; reason: string } {
  const r = v.safeParse(StartParamsSchema, withDurationUnits(params));
  if (r.success) return { ok: true, value: r.output as StartParams };
  const issue = r.issues[0];
  const path = (issue.path ?? []).map((p) => String(p.key)).join(".");
  return { ok: false, reason: `${path || "params"}: ${issue.message}` };
}

const isUsage = (u: unknown): u is Usage =>
  typeof u === "object" &&
  u !== null &&
  ["inputTokens", "outputTokens", "totalTokens"].every((k) => Number.isFinite((u as Record<string, unknown>)[k]));

/** Hand-written guard for `progress` (sent once per turn and tool call: kept cheap). */
export function isProgressParams(p: unknown): p is ProgressParams {
  if (typeof p !== "object" || p === null) return false;
  const r = p as Record<string, unknown>;
  return isUsage(r.usage) && Number.isInteger(r.turns) && Number.isInteger(r.toolCalls);
}

/** Guard for a `start` result. */
export function isChildResult(r: unknown): r is ChildResult {
  if (typeof r !== "object" || r === null) return false;
  const o = r as Record<string, unknown>;
  return isUsage(o.usage) && Number.isInteger(o.turns) && typeof o.stopReason === "string";
}

/** Read `ChildErrorData` from an error answer's `data`, tolerating a missing or odd shape. */
export function childErrorData(data: unknown): ChildErrorData {
  const o = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
  return {
    code: typeof o.code === "string" ? o.code : "E_RUN_FAILED",
    usage: isUsage(o.usage) ? o.usage : undefined,
    turns: Number.isInteger(o.turns) ? (o.turns as number) : undefined,
    stopReason: typeof o.stopReason === "string" ? o.stopReason : undefined,
  };
}
