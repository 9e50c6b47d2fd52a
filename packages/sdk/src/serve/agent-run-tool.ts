/**
 * The served agent's `agent.run` tool: run an instruction (or a served prompt) once for its caller — the
 * caller's run id honoured (else minted), an earlier answer of the same id given again, an expired one
 * refused, the run claimed across replicas and run once (run-once.ts), its progress reported and its
 * record kept in the run history. Also what an MCP task retained before a restart re-runs.
 */
import type { RunEvent } from "../loop/events.ts";
import { runIdOr } from "../loop/run-id.ts";
import type { RunResult } from "../loop/run-loop.ts";
import { traceCarrierFromMeta } from "../loop/trace-context.ts";
import type { ServerContext } from "../mcp/server/session.ts";
import type { CallToolResult } from "../wire/index.ts";
import { agentRunInput, conversationOf } from "./agent-run-input.ts";
import { scopedRunId, type Principal, type resolvePrincipal } from "./principal.ts";
import { claimServedRun, failureOf, recordSucceeded, type ServedClaim } from "./run-once.ts";
import type { RunRegistry, ToolInFlight } from "./run-registry.ts";
import type { ServedPrompts } from "./served-prompts.ts";
import type { ServedRuns } from "./served-runs.ts";
import type { ServedRunner } from "./served-mcp.ts";
import { askApprovalOf, type ServedApprovals } from "./approvals/served-approvals.ts";
import { answerResumedElsewhere, resumedElsewhere } from "./resumed-elsewhere.ts";

/** What `agent.run` works with: the served agent's runner and store, its run history, prompts and principals. */
export interface AgentRunParts {
  runner: ServedRunner;
  servedRuns: ServedRuns | undefined;
  registry: RunRegistry;
  prompts: ServedPrompts | undefined;
  principalOf: (authInfo: Parameters<typeof resolvePrincipal>[0]) => Principal;
  /** The agent's approval desk: the run's questions wait there (and its caller is asked too with `askCaller`). */
  approvals?: ServedApprovals;
}

/** The context `agent.run` is called with: a request's, or a retained task's re-run (no session behind it). */
export type AgentRunContext = Pick<ServerContext, "authInfo" | "signal" | "meta" | "sendProgress"> &
  Partial<Pick<ServerContext, "session" | "clientCapabilities">>;

/** `agent.run`: also what a served task retained before a restart re-runs (with no session behind it). */
export function agentRunTool(parts: AgentRunParts): (args: Record<string, unknown>, ctx: AgentRunContext) => Promise<CallToolResult> {
  return (args, ctx) => agentRun(parts, args, ctx);
}

async function agentRun(
  { registry, prompts, principalOf, runner, servedRuns, approvals }: AgentRunParts,
  args: Record<string, unknown>,
  ctx: AgentRunContext,
): Promise<CallToolResult> {
  const input = agentRunInput(args, prompts);
  if ("error" in input) return { content: [{ type: "text", text: input.error }], isError: true };
  const principal = principalOf(ctx.authInfo);
  const owner = principal.id;
  const callerRunId = typeof args.runId === "string" && args.runId !== "";
  const runId = runIdOr(callerRunId ? (args.runId as string) : undefined);
  const previous = registry.get(runId, owner);
  if (previous?.status === "succeeded")
    return runResultContent(previous.runId, previous.result?.text, previous.result?.output, "already done");
  if (previous?.status === "running")
    return { content: [{ type: "text", text: `run ${runId} is already running; read agent://runs/${runId}` }], isError: true };
  if (previous?.status === "waiting")
    return {
      content: [{ type: "text", text: `run ${runId} waits for a decision on a tool call (agent://approvals); read agent://runs/${runId}` }],
      isError: true,
    };
  // Never run twice: the result is gone, but the work was done.
  if (!previous && registry.expired(runId, owner))
    return {
      content: [{ type: "text", text: expiredMessage(registry, runId, "it is not run again; use a new runId to run it again") }],
      isError: true,
    };
  // Across replicas: claimed in the store; a replica that ran it (or is running it) answers for it.
  const claim = await claimServedRun(servedRuns, scopedRunId(principal, runId), ctx.signal, { stopOnLostClaim: true });
  if (claim.status !== "run") return notRunHere(runId, claim);
  const conversation = conversationOf(args, owner);
  registry.start(runId, input.instruction, owner, { via: "mcp", conversationId: conversation.conversation });
  let step = 0;
  const traceContext = traceCarrierFromMeta(ctx.meta);
  // Resumed by another replica after a wait: the answer comes from the fleet's history, recorded there by it.
  let elsewhere = false;
  try {
    const result = await claim.run((signal) =>
      runner
        .run(input.instruction, {
          runId: scopedRunId(principal, runId),
          // Another replica took the claim over (this one missed its renewals): stop, it runs there.
          signal,
          origin: { kind: "mcp" },
          principal: owner,
          // With `approvals.askCaller`: the caller is asked beside the desk, the run suspended and saved all the same.
          ...askApprovalOf(approvals, { runId: scopedRunId(principal, runId), principal: owner }, ctx),
          ...conversation, // `conversationId`: the caller's own conversation, continued
          // The caller's run id can be sent again (a retry, another replica taking a dead one's run over): the
          // run goes on from its saved conversation (durability.checkpoint.resumeConversations).
          resumeConversation: callerRunId ? true : undefined,
          traceContext,
          outputSchema:
            args.outputSchema && typeof args.outputSchema === "object" ? (args.outputSchema as Record<string, unknown>) : undefined,
          onEvent: (e) => {
            registry.observe(runId, e, owner);
            const tool = toolInFlight(e);
            if (tool !== undefined) registry.progress(runId, { tool }, owner);
            const message = describeEvent(e);
            if (!message) return;
            if (e.type === "model-end") registry.progress(runId, { turns: e.turn, usage: e.usage }, owner);
            void ctx.sendProgress(++step, undefined, message);
          },
        })
        .catch(async (e: unknown) => {
          if (!resumedElsewhere(e)) throw e;
          elsewhere = true;
          const answer = await answerResumedElsewhere(registry, runId, owner, e, signal);
          if (!answer) throw e;
          return answer;
        }),
    );
    if (elsewhere) registry.recordedElsewhere(runId, owner);
    else recordSucceeded(registry, runId, result, owner);
    return runResultContent(runId, result.text, result.output, result.stopReason, result);
  } catch (e) {
    const { code, message, usage } = failureOf(e);
    // The caller left while its run waits: the run stays saved, waiting (resumed without it, it is recorded then).
    // Resumed elsewhere with no answer to read here: the resumer records it, not this replica.
    const left = code === "E_ABORTED" && registry.get(runId, owner)?.status === "waiting";
    if (elsewhere) registry.recordedElsewhere(runId, owner);
    else if (!left) registry.fail(runId, { code, message }, usage, owner);
    return { content: [{ type: "text" as const, text: `run ${runId} failed (${code}): ${message}` }], isError: true };
  }
}

export function runResultContent(runId: string, text: string | undefined, output: unknown, stopReason: string, result?: RunResult) {
  const structured = {
    runId,
    stopReason,
    text,
    output,
    usage: result?.usage,
    turns: result?.turns,
    toolCalls: result?.toolCalls,
    conversationId: result?.conversationId,
  };
  return {
    content: [{ type: "text" as const, text: output !== undefined ? JSON.stringify(output) : (text ?? "") }],
    structuredContent: structured,
  };
}

/** The run's tool in flight as an event changes it (null: none now), or undefined when the event does not. */
export function toolInFlight(e: RunEvent): ToolInFlight | null | undefined {
  const name = (x: { name: string; qualifiedName?: string }) => x.qualifiedName ?? x.name;
  if (e.type === "tool-call-start") return { name: name(e), toolCallId: e.toolCallId };
  if (e.type === "tool-call-end") return null;
  if (e.type !== "tool-call-progress") return undefined;
  return {
    name: name(e),
    toolCallId: e.toolCallId,
    progress: e.progress,
    total: e.total,
    message: e.message,
    elapsedMs: e.elapsedMs,
  };
}

/** A one-line progress message for an event, or undefined for events not worth a progress step. */
function describeEvent(e: RunEvent): string | undefined {
  switch (e.type) {
    case "model-end":
      return `turn ${e.turn}: model answered${e.toolCalls ? ` with ${e.toolCalls} tool call(s)` : ""}`;
    case "tool-call-end":
      return `tool ${e.qualifiedName ?? e.name} ${e.isError ? "failed" : "returned"} (${e.durationMs}ms)`;
    case "tool-call-progress":
      return `tool ${e.qualifiedName ?? e.name}: ${e.progress}${e.total !== undefined ? `/${e.total}` : ""}${e.message ? ` ${e.message}` : ""}`;
    default:
      return undefined;
  }
}

/** The answer to `agent.run` when its claim says another replica has it (or the store is down). */
function notRunHere(runId: string, claim: Exclude<ServedClaim, { status: "run" }>): CallToolResult {
  const error = (text: string) => ({ content: [{ type: "text" as const, text }], isError: true });
  if (claim.status === "unavailable")
    return error(`run ${runId} was not started: the store that keeps served runs once is unavailable (${claim.message}); try again`);
  if (claim.status === "running")
    return error(
      `run ${runId} is running on another replica${claim.holder ? ` (${claim.holder})` : ""}; call again with the same runId for its answer`,
    );
  return claim.answer
    ? runResultContent(runId, claim.answer.text, claim.answer.output, "already done")
    : error(`run ${runId} was already run by another replica; its answer is no longer in the store`);
}

/** The "expired" answer for a run that left the bounded history. */
export function expiredMessage(registry: RunRegistry, runId: string, consequence: string): string {
  const { maxRuns, maxBytes } = registry.limits;
  return `run ${runId} finished and has expired from the run history (each caller's last ${maxRuns} finished runs, up to ${Math.round(maxBytes / 1024 / 1024)} MiB, are kept): ${consequence}`;
}
