/**
 * The supervisor checkpoint's document: supervisor-owned facts only — the subscription set
 * (declared and self-arranged), the routing table (each trigger's instruction and the runs in flight), and
 * the handle map (subagent handles with their retained spawn payloads, usage and state). Never model
 * context, pipes, sockets or processes.
 *
 * Versioned: `format` names it and `version` is 1. What is read back is checked with valibot; a document
 * that is not valid (torn by a foreign writer, another version) is reported in one line and ignored —
 * the agent then rebuilds from its config and reconciles, as without a checkpoint.
 */
import * as v from "valibot";
import type { HandleRecord } from "../../supervisor/handle-table.ts";
import type { ServedTaskRecord } from "../../serve/served-task-journal.ts";

/** The `format` field. */
export const CHECKPOINT_FORMAT = "agentd.checkpoint";
/** The only version written and read. */
export const CHECKPOINT_VERSION = 1;

/** The store key of an identity's checkpoint. */
export const checkpointKey = (identity: string): string => `checkpoints/${identity}`;

const int = v.pipe(v.number(), v.integer(), v.minValue(0));
const UsageSchema = v.looseObject({ inputTokens: v.number(), outputTokens: v.number(), totalTokens: v.number() });

const PayloadSchema = v.looseObject({
  instruction: v.string(),
  seed: v.optional(v.unknown()),
  scopes: v.array(v.looseObject({ allow: v.optional(v.array(v.string())) })),
  limits: v.looseObject({}),
  deadlineAt: v.optional(v.number()),
  model: v.optional(v.object({ name: v.string() })),
  outputSchema: v.optional(v.record(v.string(), v.unknown())),
  runId: v.pipe(v.string(), v.minLength(1)),
  depth: int,
  traceContext: v.optional(v.looseObject({})),
});

const HandleSchema = v.looseObject({
  id: v.pipe(v.string(), v.minLength(1)),
  status: v.picklist(["working", "completed", "failed", "cancelled"]),
  statusMessage: v.optional(v.string()),
  createdAt: v.string(),
  lastUpdatedAt: v.string(),
  ttl: v.nullable(v.number()),
  owner: v.optional(v.string()),
  payload: PayloadSchema,
  usage: UsageSchema,
  turns: int,
  toolCalls: int,
  attempts: int,
  result: v.optional(v.looseObject({ stopReason: v.string() })),
  error: v.optional(v.looseObject({ reason: v.string(), code: v.string(), message: v.string() })),
});

const SubscriptionSchema = v.object({
  id: v.string(),
  server: v.string(),
  uri: v.string(),
  instruction: v.string(),
  origin: v.picklist(["declared", "self"]),
  arrangedBy: v.optional(v.string()),
  createdAt: v.optional(v.string()),
});

const RouteSchema = v.object({
  triggerId: v.string(),
  kind: v.picklist(["subscription", "cron", "interval"]),
  instruction: v.string(),
});

/** A remote MCP task a run started (optional: documents written before it was kept have none). */
const TaskSchema = v.object({
  server: v.string(),
  runId: v.pipe(v.string(), v.minLength(1)),
  tool: v.string(),
  args: v.string(),
  taskId: v.pipe(v.string(), v.minLength(1)),
  startedAt: v.string(),
});

/** A task `agentd serve` runs for a client, not terminal (optional: older documents have none). */
const ServedTaskSchema = v.object({
  taskId: v.pipe(v.string(), v.minLength(1)),
  owner: v.pipe(v.string(), v.minLength(1)),
  auth: v.optional(
    v.object({
      principal: v.string(),
      scheme: v.picklist(["bearer", "mtls", "jwt"]),
      role: v.optional(v.literal("operator")),
      permissions: v.optional(v.array(v.string())),
      issuer: v.optional(v.string()),
    }),
  ),
  tool: v.string(),
  args: v.record(v.string(), v.unknown()),
  runId: v.pipe(v.string(), v.minLength(1)),
  ttl: v.nullable(v.number()),
  createdAt: v.string(),
});

const RunSchema = v.object({ runId: v.string(), triggerId: v.string(), startedAt: v.string() });

/**
 * The schema of a checkpoint document (version 1). Not exported: an inferred type would put valibot in the
 * public declarations; the types below are declared, and checked equal to the schemas' at the end of the file.
 */
const CheckpointSchema = v.object({
  format: v.literal(CHECKPOINT_FORMAT),
  version: v.literal(CHECKPOINT_VERSION),
  identity: v.string(),
  writtenAt: v.string(),
  subscriptions: v.array(SubscriptionSchema),
  routes: v.array(RouteSchema),
  runs: v.array(RunSchema),
  handles: v.array(HandleSchema),
  tasks: v.optional(v.array(TaskSchema)),
  servedTasks: v.optional(v.array(ServedTaskSchema)),
});

/** One subscription of the set. */
export interface CheckpointSubscription {
  id: string;
  server: string;
  uri: string;
  instruction: string;
  origin: "declared" | "self";
  arrangedBy?: string | undefined;
  createdAt?: string | undefined;
}
/** One route: a trigger and the instruction its events run with. */
export interface CheckpointRoute {
  triggerId: string;
  kind: "subscription" | "cron" | "interval";
  instruction: string;
}
/** A run in flight when the checkpoint was written. */
export interface CheckpointRun {
  runId: string;
  triggerId: string;
  startedAt: string;
}

/** A checkpoint document. */
export interface CheckpointDocument {
  format: typeof CHECKPOINT_FORMAT;
  version: typeof CHECKPOINT_VERSION;
  identity: string;
  writtenAt: string;
  subscriptions: CheckpointSubscription[];
  routes: CheckpointRoute[];
  runs: CheckpointRun[];
  handles: HandleRecord[];
  /** Remote MCP tasks started by runs and being polled (re-attached to by a re-run of the same run). */
  tasks?: CheckpointTask[];
  /** Tasks `agentd serve` runs for clients, not terminal (re-created and re-run after a restart). */
  servedTasks?: ServedTaskRecord[];
}

/** A remote task a run started. */
export interface CheckpointTask {
  server: string;
  runId: string;
  tool: string;
  args: string;
  taskId: string;
  startedAt: string;
}

/** What {@link parseCheckpoint} found. */
export type ParsedCheckpoint = { ok: true; document: CheckpointDocument } | { ok: false; reason: string };

/** Check a stored value; never throws. The reason is one line naming the first problem. */
export function parseCheckpoint(value: unknown): ParsedCheckpoint {
  if (value !== null && typeof value === "object") {
    const { format, version } = value as { format?: unknown; version?: unknown };
    if (format !== CHECKPOINT_FORMAT) return { ok: false, reason: "not an agentd checkpoint (format field missing or different)" };
    if (version !== CHECKPOINT_VERSION)
      return { ok: false, reason: `checkpoint version ${JSON.stringify(version)} is not one this agentd reads (${CHECKPOINT_VERSION})` };
  }
  const r = v.safeParse(CheckpointSchema, value);
  if (r.success) return { ok: true, document: r.output as unknown as CheckpointDocument };
  const issue = r.issues[0];
  const path = issue.path?.map((p) => String(p.key)).join(".") ?? "";
  return { ok: false, reason: `invalid checkpoint${path ? ` at ${path}` : ""}: ${issue.message}` };
}

// The declared types equal, both ways, what valibot infers from the schemas: `tsc` fails here on a difference.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const _declaredAsInferred: [
  Same<CheckpointSubscription, v.InferOutput<typeof SubscriptionSchema>>,
  Same<CheckpointRoute, v.InferOutput<typeof RouteSchema>>,
  Same<CheckpointRun, v.InferOutput<typeof RunSchema>>,
  Same<CheckpointTask, v.InferOutput<typeof TaskSchema>>,
] = [true, true, true, true];
