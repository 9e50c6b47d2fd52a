/**
 * A spawn request as a caller writes it (the model through `subagent.spawn`, an MCP client, SDK code),
 * checked and narrowed into the payload the supervisor retains: the scope is appended to the parent's
 * chain (so it can only narrow), each limit is capped by the parent's, the deadline becomes absolute.
 */
import { validateJsonSchema } from "../_internal/json-schema.ts";
import { parseDuration } from "../config/duration.ts";
import type { RunLimits } from "../loop/budget.ts";
import type { RunScope } from "../loop/scope.ts";
import { AgentdError } from "../wire/errors.ts";
import type { SpawnPayload } from "./handle-table.ts";

/**
 * The spawn request, written once as the JSON Schema a model sees: the validator is this schema (checked by
 * the SDK's own JSON Schema validator, as every tool's arguments are), so what the model is told and what is
 * accepted cannot drift apart. `SpawnRequest` below is its declared type, checked equal to it by
 * `spawn-request.types.test.ts`. Every field may be set by code (`Supervisor.run`/`start`); the fields in
 * {@link CODE_ONLY_FIELDS} are left out of the model's schema (docs/subagents.md says why).
 */
export const SPAWN_REQUEST_SCHEMA = {
  type: "object",
  properties: {
    instruction: { type: "string", pattern: "\\S", description: "The task for the subagent, self-contained" },
    seed: { description: "Data the subagent starts from (any JSON)" },
    scope: {
      type: "object",
      properties: { allow: { type: "array", items: { type: "string" }, description: 'Tools it may use, as globs over "server/tool"' } },
      additionalProperties: false,
    },
    limits: {
      type: "object",
      description: "The subagent's budget; each limit is capped by yours",
      properties: {
        maxTurns: { type: "integer", minimum: 1 },
        maxTokens: { type: "integer", minimum: 1 },
        deadline: {
          type: "string",
          // A duration with a unit and more than zero; 40 characters keep it a finite number of milliseconds.
          pattern: "^\\s*(?=[^1-9]*[1-9])(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h|d))+\\s*$",
          maxLength: 40,
          description: 'A duration with a unit, such as "90s" or "5m"',
        },
        maxCostUsd: { type: "number", exclusiveMinimum: 0, description: "Spend in US dollars (when model prices are configured)" },
        toolTimeoutMs: { type: "integer", minimum: 1, description: "Each tool call's timeout, in milliseconds" },
      },
      additionalProperties: false,
    },
    model: { type: "string", minLength: 1, description: "Another model name on the same endpoint (optional)" },
    outputSchema: { type: "object", description: "A JSON Schema the subagent's final answer must validate against" },
    runId: { type: "string", minLength: 1 },
  },
  required: ["instruction"],
  additionalProperties: false,
} as const;

/** Fields only code may set: a run id names the child's run for claims and history, so a model never picks one. */
export const CODE_ONLY_FIELDS = ["runId"] as const;

/** What a caller asks for (the declared type of {@link SPAWN_REQUEST_SCHEMA}). */
export interface SpawnRequest {
  /** What the child should do (its user message); not empty. */
  instruction: string;
  /** Data the child starts from (JSON), shown to it after the instruction. */
  seed?: unknown;
  /** Which tools the child may use (globs over `server/tool`), within the parent's scope. */
  scope?: { allow?: string[] };
  /** The child's budget, capped by the parent's. `deadline` is a duration with a unit ("90s"). */
  limits?: { maxTurns?: number; maxTokens?: number; deadline?: string; maxCostUsd?: number; toolTimeoutMs?: number };
  /** Another model name on the parent's endpoint. */
  model?: string;
  /** A JSON Schema the child's final answer must validate against (its result's `output`). */
  outputSchema?: Record<string, unknown>;
  /** Idempotency id for the child's run (default: derived from the parent's run and the handle id). Code only. */
  runId?: string;
}

const { runId: _codeOnly, ...modelFields } = SPAWN_REQUEST_SCHEMA.properties;

/** JSON Schema of the `subagent.spawn` tool's input: the request without the code-only fields, plus `async`. */
export const SPAWN_INPUT_SCHEMA: Record<string, unknown> = {
  ...SPAWN_REQUEST_SCHEMA,
  properties: { ...modelFields, async: { type: "boolean", description: "Return a handle at once instead of waiting for the result" } },
};

/** The line a refusal says for a field whose schema message would not help (a pattern, say). */
const FIELD_MESSAGES: Record<string, string> = {
  instruction: "instruction must not be empty",
  "limits.deadline": 'deadline must be a duration such as "90s"',
  "limits.maxTurns": "maxTurns must be a whole number of at least 1",
  "limits.maxTokens": "maxTokens must be a whole number of at least 1",
};

/**
 * Why `request` is not a spawn request by `schema` (the whole request, or the tool's input), as one line
 * (`instruction: instruction must not be empty`); undefined when it is one.
 */
export function spawnRequestProblem(request: unknown, schema: object = SPAWN_REQUEST_SCHEMA): string | undefined {
  const r = validateJsonSchema(schema, request);
  if (r.valid) return undefined;
  const first = r.errors[0] ?? "$: not a spawn request";
  // "$.limits.deadline: must match …" → the field's path and the validator's words, or the field's own line.
  const m = /^\$\.?([^:]*): (.*)$/.exec(first);
  const path = m?.[1] ?? "";
  const said = m?.[2] ?? first;
  if (said === "is not an allowed property")
    return (CODE_ONLY_FIELDS as readonly string[]).includes(path)
      ? `${path}: chosen by the agent, never in a tool call; leave it out`
      : `${path}: not a field of a spawn request`;
  return `${path ? `${path}: ` : ""}${FIELD_MESSAGES[path] ?? said}`;
}

/** What the parent contributes to every payload. */
export interface ParentBounds {
  /** The parent's scope chain. */
  scopes: RunScope[];
  /** The parent's limits: the ceiling of every child's. */
  limits: RunLimits;
  /** The child's depth. */
  depth: number;
}

const min = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/** Check a request and build the retained payload. Throws `E_SUPERVISOR` with one clear line. */
export function buildSpawnPayload(request: unknown, parent: ParentBounds, ids: { runId: string }, now = Date.now()): SpawnPayload {
  const problem = spawnRequestProblem(request);
  if (problem) throw new AgentdError("E_SUPERVISOR", `invalid spawn request: ${problem}`);
  const q = request as SpawnRequest;
  const l = q.limits ?? {};
  const ceiling = parent.limits;
  // The pattern admits "0.4ms", which rounds to 0: a deadline is at least a millisecond.
  const asked = l.deadline !== undefined ? Math.max(1, parseDuration(l.deadline) ?? 1) : undefined;
  const deadlineMs = min(asked, ceiling.deadlineMs);
  const limits: SpawnPayload["limits"] = {};
  const set = (k: keyof SpawnPayload["limits"], value: number | undefined) => value !== undefined && (limits[k] = value);
  set("maxTurns", min(l.maxTurns, ceiling.maxTurns));
  set("maxTokens", min(l.maxTokens, ceiling.maxTokens));
  set("maxCostUsd", min(l.maxCostUsd, ceiling.maxCostUsd));
  set("toolTimeoutMs", min(l.toolTimeoutMs, ceiling.toolTimeoutMs));
  return {
    instruction: q.instruction.trim(),
    seed: q.seed,
    scopes: q.scope?.allow ? [...parent.scopes, { allow: q.scope.allow }] : [...parent.scopes],
    limits,
    deadlineAt: deadlineMs === undefined ? undefined : now + deadlineMs,
    model: q.model ? { name: q.model } : undefined,
    outputSchema: q.outputSchema,
    runId: q.runId ?? ids.runId,
    depth: parent.depth,
  };
}

/**
 * Whether a glob could match some tool of `server` (`server/…`): its literal prefix, up to the first
 * wildcard, agrees with `server/`. Used to hand a child only the servers its scope chain can reach.
 */
export function globMayMatchServer(glob: string, server: string): boolean {
  const wild = glob.search(/[*?]/);
  const literal = wild < 0 ? glob : glob.slice(0, wild);
  const prefix = `${server}/`;
  if (wild < 0) return literal.startsWith(prefix);
  return literal.length >= prefix.length ? literal.startsWith(prefix) : prefix.startsWith(literal);
}

/** The servers every scope of the chain may reach. */
export function serversInScope<T>(servers: Record<string, T>, scopes: RunScope[]): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [name, config] of Object.entries(servers))
    if (scopes.every((s) => !s.allow || s.allow.some((g) => globMayMatchServer(g, name)))) out[name] = config;
  return out;
}
