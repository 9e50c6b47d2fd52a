/**
 * A spawn request as a caller writes it (the model through `subagent.spawn`, an MCP client, SDK code),
 * checked and narrowed into the payload the supervisor retains: the scope is appended to the parent's
 * chain (so it can only narrow), each limit is capped by the parent's, the deadline becomes absolute.
 */
import * as v from "valibot";
import { parseDuration } from "../config/duration.ts";
import type { RunLimits } from "../loop/budget.ts";
import type { RunScope } from "../loop/scope.ts";
import { AgentdError } from "../wire/errors.ts";
import type { SpawnPayload } from "./handle-table.ts";

/** What a caller asks for. */
export interface SpawnRequest {
  /** What the child should do (its user message). */
  instruction: string;
  /** Data the child starts from (JSON), shown to it after the instruction. */
  seed?: unknown;
  /** Which tools the child may use (globs over `server/tool`), within the parent's scope. */
  scope?: RunScope;
  /** The child's budget, capped by the parent's. `deadline` is a duration ("90s") or milliseconds. */
  limits?: { maxTurns?: number; maxTokens?: number; deadline?: string | number; maxCostUsd?: number; toolTimeoutMs?: number };
  /** Another model name on the parent's endpoint. */
  model?: string;
  outputSchema?: Record<string, unknown>;
  /** Idempotency id for the child's run (default: derived from the parent's run and the handle id). */
  runId?: string;
}

/** JSON Schema of a spawn request (the `subagent.spawn` tool's input, plus `async`). */
export const SPAWN_INPUT_SCHEMA: Record<string, unknown> = {
  type: "object",
  properties: {
    instruction: { type: "string", minLength: 1, description: "The task for the subagent, self-contained" },
    seed: { description: "Data the subagent starts from (any JSON)" },
    scope: {
      type: "object",
      properties: { allow: { type: "array", items: { type: "string" }, description: 'Tools it may use, as globs over "server/tool"' } },
      additionalProperties: false,
    },
    limits: {
      type: "object",
      properties: {
        maxTurns: { type: "integer", minimum: 1 },
        maxTokens: { type: "integer", minimum: 1 },
        deadline: { type: "string", description: 'A duration with a unit, such as "90s" or "5m"' },
      },
      additionalProperties: false,
    },
    model: { type: "string", description: "Another model name (optional)" },
    async: { type: "boolean", description: "Return a handle at once instead of waiting for the result" },
  },
  required: ["instruction"],
  additionalProperties: false,
};

const positive = v.pipe(
  v.number(),
  v.check((n) => Number.isFinite(n) && n > 0, "a positive number"),
);
const RequestSchema = v.object({
  instruction: v.pipe(v.string(), v.trim(), v.minLength(1, "instruction must not be empty")),
  seed: v.optional(v.unknown()),
  scope: v.optional(v.object({ allow: v.optional(v.array(v.string())) })),
  limits: v.optional(
    v.object({
      maxTurns: v.optional(v.pipe(v.number(), v.integer("maxTurns must be a whole number"), v.minValue(1))),
      maxTokens: v.optional(positive),
      deadline: v.optional(
        v.pipe(
          v.union([v.string(), v.number()]),
          v.check((d) => (parseDuration(d) ?? 0) > 0, 'deadline must be a duration such as "90s"'),
        ),
      ),
      maxCostUsd: v.optional(positive),
      toolTimeoutMs: v.optional(positive),
    }),
  ),
  model: v.optional(v.pipe(v.string(), v.minLength(1))),
  outputSchema: v.optional(v.record(v.string(), v.unknown())),
  runId: v.optional(v.pipe(v.string(), v.minLength(1))),
});

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
  const r = v.safeParse(RequestSchema, request);
  if (!r.success) {
    const issue = r.issues[0];
    const path = (issue.path ?? []).map((p) => String(p.key)).join(".");
    throw new AgentdError("E_SUPERVISOR", `invalid spawn request: ${path ? `${path}: ` : ""}${issue.message}`);
  }
  const q = r.output;
  const l = q.limits ?? {};
  const ceiling = parent.limits;
  const deadlineMs = min(l.deadline !== undefined ? parseDuration(l.deadline) : undefined, ceiling.deadlineMs);
  const limits: SpawnPayload["limits"] = {};
  const set = (k: keyof SpawnPayload["limits"], value: number | undefined) => value !== undefined && (limits[k] = value);
  set("maxTurns", min(l.maxTurns, ceiling.maxTurns));
  set("maxTokens", min(l.maxTokens, ceiling.maxTokens));
  set("maxCostUsd", min(l.maxCostUsd, ceiling.maxCostUsd));
  set("toolTimeoutMs", min(l.toolTimeoutMs, ceiling.toolTimeoutMs));
  return {
    instruction: q.instruction,
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
