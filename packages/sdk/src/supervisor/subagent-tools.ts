/**
 * The subagent tools, one definition for both surfaces: the model's self-tools and the served agent's tools.
 * `subagent.spawn` (sync, or `async: true` for a handle), `subagent.wait` (subscribe to the result resource
 * and read it once it is updated), `subagent.result` (read it now), `subagent.list`, `subagent.cancel`.
 * Refusals and failures are tool-domain errors: text the model can act on, never a crash.
 */
import type { ToolDescriptor } from "../loop/tools.ts";
import { AgentdError } from "../wire/errors.ts";
import { isTerminal, type HandleRecord } from "./handle-table.ts";
import { SPAWN_INPUT_SCHEMA, spawnRequestProblem } from "./spawn-request.ts";
import type { Supervisor } from "./supervisor.ts";
import type { TraceCarrier } from "../loop/trace-context.ts";

/** The URI of a handle's result resource. */
export const resultUri = (id: string): string => `agent://subagent/${id}/result`;
/** The URI template of the result resources. */
export const RESULT_URI_TEMPLATE = "agent://subagent/{id}/result";

/** Default wait of `subagent.wait` (ms). */
export const DEFAULT_WAIT_MS = 300_000;

const ID = { type: "string", description: "The subagent's id, as subagent.spawn returned it" };

/** The tools, as offered to a model and listed on the served agent. */
export const SUBAGENT_TOOLS: ToolDescriptor[] = [
  {
    name: "subagent.spawn",
    description:
      "Delegate a self-contained task to a subagent (a separate agent process with its own budget, within your scope). Returns its result; with async: true, returns an id at once — then call subagent.wait with that id.",
    inputSchema: SPAWN_INPUT_SCHEMA,
  },
  {
    name: "subagent.wait",
    description: "Wait for a subagent started with async: true to finish and return its result (or its status if the wait times out).",
    inputSchema: {
      type: "object",
      properties: { id: ID, timeoutMs: { type: "integer", minimum: 1 } },
      required: ["id"],
      additionalProperties: false,
    },
  },
  {
    name: "subagent.result",
    description: "Read a subagent's result resource now: its status while it runs, its result once done.",
    inputSchema: { type: "object", properties: { id: ID }, required: ["id"], additionalProperties: false },
  },
  {
    name: "subagent.list",
    description: "List your subagents with their status and usage.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
  },
  {
    name: "subagent.cancel",
    description: "Cancel a running subagent (and everything it started).",
    inputSchema: { type: "object", properties: { id: ID, reason: { type: "string" } }, required: ["id"], additionalProperties: false },
  },
];

/** What a subagent tool call returns (the ToolSet and the MCP surface render it their way). */
export interface SubagentToolAnswer {
  text: string;
  isError: boolean;
  structuredContent?: Record<string, unknown>;
}

/** The public view of a handle: what the result resource holds. No seed, no scope, no model settings. */
export function handleView(r: HandleRecord): Record<string, unknown> {
  const instruction = r.payload.instruction;
  return {
    id: r.id,
    uri: resultUri(r.id),
    status: r.status,
    statusMessage: r.statusMessage,
    createdAt: r.createdAt,
    lastUpdatedAt: r.lastUpdatedAt,
    ttl: r.ttl,
    runId: r.payload.runId,
    depth: r.payload.depth,
    attempts: r.attempts,
    instruction: instruction.length > 200 ? `${instruction.slice(0, 200)}…` : instruction,
    usage: r.usage,
    turns: r.turns,
    toolCalls: r.toolCalls,
    result: r.result,
    error: r.error,
  };
}

/** The answer for a handle: the child's text when completed, a clear error when not. */
export function answerFor(r: HandleRecord): SubagentToolAnswer {
  const structuredContent = handleView(r);
  if (r.status === "completed") {
    const out = r.result?.output;
    return { text: out !== undefined ? JSON.stringify(out) : (r.result?.text ?? ""), isError: false, structuredContent };
  }
  const tokens = r.usage.inputTokens + r.usage.outputTokens;
  if (r.status === "working")
    return {
      text: `subagent ${r.id} is still working (${r.statusMessage ?? "running"}; ${tokens} tokens so far). Call subagent.wait with {"id":"${r.id}"} again.`,
      isError: false,
      structuredContent,
    };
  const e = r.error;
  return {
    text: `subagent ${r.id} ${r.status}${e ? ` (${e.reason}, ${e.code}): ${e.message}` : ""}. It used ${tokens} tokens over ${r.attempts} attempt(s).`,
    isError: true,
    structuredContent,
  };
}

const refuse = (text: string): SubagentToolAnswer => ({ text, isError: true });

/** Run one subagent tool. `owner` scopes list/wait/cancel to the caller's own children when set. */
export async function callSubagentTool(
  supervisor: Supervisor,
  name: string,
  args: Record<string, unknown>,
  ctx: { owner?: string; signal?: AbortSignal; traceContext?: TraceCarrier },
): Promise<SubagentToolAnswer> {
  const find = (): HandleRecord | SubagentToolAnswer => {
    const id = typeof args.id === "string" ? args.id : "";
    const r = supervisor.get(id);
    if (r && (ctx.owner === undefined || r.owner === ctx.owner)) return r;
    const known = supervisor.list({ owner: ctx.owner }).map((h) => h.id);
    return refuse(`no subagent with id "${id}"${known.length ? `; known: ${known.join(", ")}` : ""}`);
  };
  try {
    switch (name) {
      case "subagent.spawn": {
        // The model's (and an MCP client's) view: the code-only fields (a run id) are not theirs to set.
        const problem = spawnRequestProblem(args, SPAWN_INPUT_SCHEMA);
        if (problem) return refuse(`invalid spawn request: ${problem}`);
        const { async: isAsync, ...request } = args;
        const spawn = { owner: ctx.owner, traceContext: ctx.traceContext };
        if (isAsync === true) {
          const r = supervisor.start(request, spawn);
          return {
            text: `Started subagent ${r.id}. Its result will be at ${resultUri(r.id)}; call subagent.wait with {"id":"${r.id}"} to get it.`,
            isError: false,
            structuredContent: handleView(r),
          };
        }
        return answerFor(await supervisor.run(request, { ...spawn, signal: ctx.signal }));
      }
      case "subagent.wait": {
        const r = find();
        if (!("id" in r)) return r;
        const timeoutMs = typeof args.timeoutMs === "number" ? args.timeoutMs : DEFAULT_WAIT_MS;
        const done = await supervisor.wait(r.id, { timeoutMs, signal: ctx.signal });
        return answerFor(done ?? r);
      }
      case "subagent.result": {
        const r = find();
        if (!("id" in r)) return r;
        return { text: JSON.stringify(handleView(r)), isError: r.status === "failed", structuredContent: handleView(r) };
      }
      case "subagent.list": {
        const all = supervisor.list({ owner: ctx.owner }).map(handleView);
        return { text: all.length ? JSON.stringify(all) : "no subagents", isError: false, structuredContent: { subagents: all } };
      }
      case "subagent.cancel": {
        const r = find();
        if (!("id" in r)) return r;
        if (isTerminal(r.status)) return answerFor(r);
        const reason = typeof args.reason === "string" && args.reason ? args.reason : "cancelled by the parent";
        const final = (await supervisor.cancel(r.id, reason)) ?? r;
        // The cancel did what was asked: not an error, even though the child's own outcome is "cancelled".
        return final.status === "cancelled" ? { ...answerFor(final), isError: false } : answerFor(final);
      }
      default:
        return refuse(`unknown subagent tool "${name}"`);
    }
  } catch (e) {
    if (AgentdError.isInstance(e) && e.code === "E_SUPERVISOR") return refuse(e.message);
    if (ctx.signal?.aborted) throw e;
    return refuse(`${name} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
