/**
 * `POST /console/api/start`: an operator starts a run from the console's page (an instruction, an optional run
 * id and conversation, the budgets) and watches it on its timeline. It runs as `agent.run` runs it — the same runner (refused
 * while draining), recorded in the same registry under the operator's principal, its events folded into its
 * detail — but the answer does not wait for the run: it says which run to watch. Operators only (403
 * otherwise), and like the console's actions the body must be `application/json` (a cross-site form cannot
 * send it) and small.
 */
import { readConsoleBody } from "./console-body.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { Logger } from "../../log.ts";
import { scrubSecrets } from "../../log.ts";
import type { RunLimits } from "../../loop/budget.ts";
import { type Principal, scopedRunId } from "../../serve/principal.ts";
import type { RunRegistry } from "../../serve/run-registry.ts";
import { newRunId, type ServedRunner, toolInFlight } from "../../serve/served-mcp.ts";
import type { ApprovalDesk } from "../../loop/approvals/approval-desk.ts";

const RUN_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** What may name a conversation (as `agent.run`'s `conversationId` and `agentd run --conversation` take it). */
const CONVERSATION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const BUDGETS = ["maxTurns", "maxTokens", "deadlineMs", "maxCostUsd"] as const;

/** What starting a run from the console needs. */
export interface ConsoleStartOptions {
  registry: RunRegistry;
  runner: ServedRunner;
  /** The approval desk: a run started here asks there, as a served run does (none: nobody is asked). */
  approvals?: ApprovalDesk;
  logger: Logger;
}

/** An answer: status and JSON body (the mount adds its headers). */
export type StartAnswer = { status: number; body: unknown };

const refuse = (status: number, code: string, message: string): StartAnswer => ({ status, body: { error: { code, message } } });

/** Handle `POST /console/api/start` for `who`. */
export async function startFromConsole(req: Request, who: Principal, o: ConsoleStartOptions): Promise<StartAnswer> {
  if (who.role !== "operator") return refuse(403, "PermissionDenied", "only an operator may start a run from the console");
  const body = await readConsoleBody(req, "the run's parameters");
  if (!body.ok) return refuse(body.status, body.code, body.message);
  const params = body.params;
  const parsed = startParams(params);
  if ("error" in parsed) return refuse(400, "InvalidParams", parsed.error);
  const { instruction, runId, limits, conversation } = parsed;
  const previous = o.registry.get(runId, who.id)?.status;
  if (previous === "running") return refuse(409, "UnsupportedOperation", `run ${runId} is already running`);
  if (previous === "waiting")
    return refuse(409, "UnsupportedOperation", `run ${runId} waits for a decision on a tool call: decide it on the Questions page`);
  o.registry.start(runId, instruction, who.id, { via: "console", ...(conversation ? { conversationId: conversation } : {}) });
  o.logger.info("console.run_started", { principal: who.id, runId, conversation });
  void run(o, who, { runId, instruction, limits, conversation });
  return { status: 202, body: { result: { runId, principal: who.id } } };
}

/** A start's parameters. */
type StartParams = { instruction: string; runId: string; limits: RunLimits; conversation?: string };

/** The parameters of a start, checked: one line saying what is wrong otherwise. */
function startParams(p: unknown): StartParams | { error: string } {
  if (typeof p !== "object" || p === null || Array.isArray(p)) return { error: "the body must be a JSON object" };
  const q = p as Record<string, unknown>;
  if (typeof q.instruction !== "string" || q.instruction.trim() === "") return { error: "instruction: give the run's instruction as text" };
  if (q.runId !== undefined && q.runId !== "" && (typeof q.runId !== "string" || !RUN_ID.test(q.runId)))
    return { error: "runId: 1 to 128 letters, digits, '.', '_', ':' or '-'" };
  const conversation = q.conversation === undefined || q.conversation === "" ? undefined : q.conversation;
  if (
    conversation !== undefined &&
    (typeof conversation !== "string" || !CONVERSATION_ID.test(conversation) || conversation.includes(".."))
  )
    return { error: "conversation: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit" };
  const limits: RunLimits = {};
  for (const k of BUDGETS) {
    const v = q[k];
    if (v === undefined || v === null || v === "") continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return { error: `${k}: a number above 0` };
    if (k !== "maxCostUsd" && !Number.isInteger(v)) return { error: `${k}: a whole number` };
    limits[k] = v;
  }
  return {
    instruction: q.instruction,
    runId: typeof q.runId === "string" && q.runId ? q.runId : newRunId(),
    limits,
    ...(conversation ? { conversation } : {}),
  };
}

/** Run it to its end, recording as agent.run does. */
async function run(o: ConsoleStartOptions, who: Principal, { runId, instruction, limits, conversation }: StartParams): Promise<void> {
  const { registry } = o;
  const channel = o.approvals?.channelFor({ runId: scopedRunId(who, runId), principal: who.id, origin: "console" });
  try {
    const result = await o.runner.run(instruction, {
      runId: scopedRunId(who, runId),
      principal: who.id,
      // The operator's own conversation, continued (created on first use), as agent.run's conversationId.
      ...(conversation ? { conversation } : {}),
      ...(channel ? { askApproval: (request, signal) => channel.ask(request, signal) } : {}),
      ...(Object.keys(limits).length ? { limits } : {}),
      onEvent: (e) => {
        registry.observe(runId, e, who.id);
        const tool = toolInFlight(e);
        if (tool !== undefined) registry.progress(runId, { tool }, who.id);
        if (e.type === "model-end") registry.progress(runId, { turns: e.turn, usage: e.usage }, who.id);
      },
    });
    registry.succeed(runId, result, who.id);
  } catch (e) {
    const code = AgentdError.isInstance(e) ? e.code : "E_RUN_FAILED";
    const usage = AgentdError.isInstance(e) ? (e.options.data?.usage as Parameters<RunRegistry["fail"]>[2]) : undefined;
    registry.fail(runId, { code, message: scrubSecrets(e instanceof Error ? e.message : String(e)) }, usage, who.id);
  }
}
