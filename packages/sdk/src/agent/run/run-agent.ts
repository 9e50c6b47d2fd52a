/**
 * Running one run: refused while the agent drains or is closed; made a {@link ActiveRun} in the agent's one
 * table of runs in flight (so a drain waits for it, `cancel(runId)` reaches it, and its operator, its
 * authorizations and its sampling are found on it); connected, with the server authorizations an A2A
 * task's client can complete; resumed from a saved conversation when a triggered run is re-run under its
 * id; then the agentic loop under the live settings, its events fanned out to listeners, telemetry and
 * the served run history. When it ends, what was its ends with it — unless it stopped to wait for a
 * person's decision: then it is saved (run-waiting.ts) and leaves flight waiting, to be resumed
 * (resume-run.ts) through the same steps from what was saved.
 */
import type { ConversationsOf, RunConversation } from "../conversations/agent-conversations.ts";
import type { ConversationMark } from "../conversations/conversation-writer.ts";
import type { RunApprovals } from "../../loop/approvals/approval-types.ts";
import { runApprovals } from "../tools/run-approvals.ts";
import type { Logger } from "../../log.ts";
import type { ModelPrices, RunLimits } from "../../loop/budget.ts";
import type { RunEvent } from "../../loop/events.ts";
import type { RunScope } from "../../loop/scope.ts";
import { runIdOr } from "../../loop/run-id.ts";
import { runLoop, type RunResult } from "../../loop/run-loop.ts";
import type { RunContinuation } from "../../loop/run-suspension.ts";
import { maskRunEvents } from "../../loop/mask-run-events.ts";
import { maskErrorSecrets, maskSecrets } from "../../secret-values.ts";
import { createRunSignal } from "../../loop/run-signal.ts";
import type { ToolSet } from "../../loop/tools.ts";
import { withAuthorization } from "../../mcp/client/authorization-ask.ts";
import type { LanguageModel } from "../../model/language-model.ts";
import type { Telemetry } from "../../telemetry/types.ts";
import { AgentdError } from "../../wire/errors.ts";
import { withoutUndefined } from "../../_internal/without-undefined.ts";
import type { AgentLifecycle } from "./agent-lifecycle.ts";
import type { AgentOptions } from "../types/agent-options.ts";
import type { AgentRunOptions } from "./run-options.ts";
import { type ActiveRun, outcomeOf, type RunOrigin } from "./run.ts";
import { type AgentWaiting, waitingRunOf } from "./run-waiting.ts";

/** A fresh run id (`run-<uuid>`). Deprecated: a run's id is minted by the agent when none is given. */
export { mintRunId as newRunId } from "../../loop/run-id.ts";

/** Where a run's events go besides its own listener: the served run history and metrics, once the agent serves. */
export interface RunObservers {
  /** A triggered run's event, for its record in the served run history (a no-op until the agent serves). */
  observe(run: ActiveRun, event: RunEvent): void;
  /** A triggered run started: its lag behind its event (metrics). */
  triggered(kind: string, firedAt: Date): void;
}

/** The agent's settings a run reads when it starts (a reload may change them between runs). */
export interface RunSettings {
  instructions?: string;
  limits?: RunLimits;
  prices?: ModelPrices;
  scope?: RunScope;
}

/** What a run reaches of its agent. */
export interface RunParts {
  lifecycle: AgentLifecycle;
  connect: () => Promise<void>;
  /** The tools its runs are offered (the agent's McpToolSet; a subagent child's scoped set). */
  toolSet: ToolSet;
  /** The live settings (instructions, limits, prices, scope), read when each run starts. */
  settings: () => RunSettings;
  listeners: ReadonlySet<(event: RunEvent) => void>;
  telemetry: () => Promise<Telemetry | undefined>;
  /** The served history and metrics: registered when the agent first serves (`attach`). */
  observers: { current: RunObservers | undefined };
  /** The agent's conversations: a run naming one (`conversation`) continues it. */
  conversations: ConversationsOf;
  /** Where runs that wait for a decision are saved, and who is told of their questions. */
  waiting: AgentWaiting;
  logger: Logger;
}

/** Refuse a run the agent cannot take now (no model, closed, shutting down). */
export function admit(options: AgentOptions, lifecycle: AgentLifecycle): LanguageModel {
  if (!options.model)
    throw new AgentdError(
      "E_CONFIG_INVALID",
      "no model configured: set AGENT_INTELLIGENCE, --intelligence or model.intelligence (or pass model to createAgent)",
    );
  if (lifecycle.state === "closed") throw new AgentdError("E_USAGE", "the agent is closed");
  if (lifecycle.state === "draining" || lifecycle.state === "drained")
    throw new AgentdError("E_UPSTREAM", "the agent is shutting down; not taking new runs");
  return options.model;
}

/** Where a run came from, as its options say. */
function originOf(o: AgentRunOptions): RunOrigin {
  if (o.origin) return o.origin;
  if (o.triggerEvent) return { kind: "trigger", trigger: o.triggerEvent.id, event: o.triggerEvent };
  return { kind: "direct" };
}

/** The agent's `run`: see the module header. */
export function createRun(options: AgentOptions, parts: RunParts): (input: string, runOptions?: AgentRunOptions) => Promise<RunResult> {
  const { lifecycle, logger } = parts;
  return async (input, runOptions = {}) => {
    admit(options, lifecycle);
    const run = lifecycle.runs.begin({
      id: runIdOr(runOptions.runId),
      origin: originOf(runOptions),
      principal: runOptions.principal,
      trigger: runOptions.trigger,
      limits: runOptions.limits,
      traceContext: runOptions.traceContext,
      signal: runOptions.signal,
      askOperator: runOptions.askOperator,
      askAuthorization: runOptions.askAuthorization,
      logger,
    });
    runOptions.onStart?.(run);
    // The conversation tier: a triggered run re-run under the same run id goes on from its saved turns, and
    // so does a run that asks for it (a served run with the caller's run id, taken over from a dead replica).
    const keep = ((runOptions.trigger || runOptions.triggerEvent) && options.triggers?.specs.length) || runOptions.resumeConversation;
    run.conversation = keep ? options.durability?.checkpoint?.conversations?.open(run.id) : undefined;
    return driveRun(options, parts, run, input, runOptions);
  };
}

/** A resumed run's saved state and decisions, and the mark of the conversation it continues, if any. */
export type ResumedFrom = RunContinuation & { conversation?: ConversationMark };

/**
 * An admitted run to its end, or to its wait (saved, it leaves flight without finishing); `continued`: a
 * resumed run's saved state and decisions.
 */
export async function driveRun(
  options: AgentOptions,
  parts: RunParts,
  run: ActiveRun,
  input: string,
  runOptions: AgentRunOptions,
  continued?: ResumedFrom,
): Promise<RunResult> {
  let outcome = outcomeOf(undefined);
  try {
    const suspend = parts.waiting.suspendFor(options.approvals, runOptions, run);
    const approvals = runApprovals(options.approvals, runOptions.askApproval, run, suspend);
    const result = await runOnce(admit(options, parts.lifecycle), run, input, runOptions, parts, approvals, continued);
    outcome = { status: "ok" };
    return result;
  } catch (e) {
    maskErrorSecrets(e);
    outcome = outcomeOf(e);
    throw e;
  } finally {
    // Aborted (a shutdown, a lost claim): the conversation stays for the re-run.
    if (outcome.status !== "aborted") await run.conversation?.end();
    if (!run.suspended) run.finish(outcome);
    parts.lifecycle.runs.end(run);
  }
}

/**
 * The conversation a run continues: loaded (and cut to its bound) before, saved after each turn; a resumed
 * run's goes on writing from where its first part left it (the whole exchange, once).
 */
async function openConversation(
  parts: RunParts,
  run: ActiveRun,
  input: string,
  runOptions: AgentRunOptions,
  model: LanguageModel,
  continued: ResumedFrom | undefined,
): Promise<RunConversation | undefined> {
  const { logger } = parts;
  const mark = continued?.conversation;
  if (mark)
    return parts.conversations.forResume(mark, continued.suspension.messages.slice(0, mark.history), { runId: run.id, input, logger });
  if (runOptions.conversation === undefined || continued) return undefined;
  return parts.conversations.forRun(runOptions.conversation, {
    runId: run.id,
    input,
    principal: runOptions.principal,
    logger,
    // A conversation that summarises what it outgrows asks the run's model (docs/conversations.md).
    model,
    signal: run.signal,
  });
}

/** The run, once admitted: connect, resume, loop; its sampling joins the result. */
async function runOnce(
  model: LanguageModel,
  run: ActiveRun,
  input: string,
  runOptions: AgentRunOptions,
  parts: RunParts,
  approvals: RunApprovals | undefined,
  continued: ResumedFrom | undefined,
): Promise<RunResult> {
  const { toolSet, logger } = parts;
  // A run that can get a server authorized (an A2A task) waits for it when connecting and listing tools too.
  const ask = run.askAuthorization;
  // The loop's own deadline starts after connecting and listing tools: this one bounds the waits before.
  const waiting = ask ? createRunSignal(run.limits?.deadlineMs ?? parts.settings().limits?.deadlineMs, run.signal) : undefined;
  const askSignal = waiting?.signal ?? run.signal;
  let thread: RunConversation | undefined;
  try {
    await (ask ? withAuthorization(parts.connect, ask, askSignal) : parts.connect());
    thread = await openConversation(parts, run, input, runOptions, model, continued);
    // Only native tool calling resumes (the JSON-action mode's turns are not saved).
    const resume = model.supportsTools && !continued ? await run.conversation?.load() : undefined;
    if (resume) logger.info("conversation.resumed", { runId: run.id, messages: resume.length });
    run.recorder = (await parts.telemetry())?.run(run);
    if (runOptions.triggerEvent) parts.observers.current?.triggered(runOptions.triggerEvent.kind, runOptions.triggerEvent.firedAt);
    const triggered = Boolean(runOptions.trigger || runOptions.triggerEvent);
    const emit = (event: RunEvent) => {
      run.recorder?.onEvent(event);
      // With tracing on, a request names its trace (the run's history shows it; a console links it to the backend).
      const traceparent =
        event.type === "model-start" ? run.recorder?.carrier({ kind: "model", turn: event.turn })?.traceparent : undefined;
      const e: RunEvent = traceparent && event.type === "model-start" ? { ...event, traceId: traceparent.split("-")[1]! } : event;
      // A triggered run's events fill its record in the served run history (a no-op for other runs).
      if (triggered) parts.observers.current?.observe(run, e);
      thread?.observe(e);
      for (const l of parts.listeners) l(e);
      runOptions.onEvent?.(e);
    };
    // The settings as they are now: a reload during the waits above applies to this run.
    const live = parts.settings();
    const tools: ToolSet = ask
      ? { list: () => withAuthorization(() => toolSet.list(), ask, askSignal), call: (n, a, c) => toolSet.call(n, a, c) }
      : toolSet;
    run.transition("running");
    const conversation = run.conversation;
    const result = await runLoop({
      model,
      tools,
      input,
      runId: run.id,
      instructions: live.instructions,
      // A run's own limits win where they are set: an undefined one keeps the agent's.
      limits: { ...live.limits, ...withoutUndefined(run.limits) },
      prices: live.prices,
      scope: live.scope,
      outputSchema: runOptions.outputSchema,
      maxOutputRetries: runOptions.maxOutputRetries,
      signal: run.signal,
      stream: runOptions.stream,
      backpressure: runOptions.backpressure,
      // A secret a peer echoed (a tool's result, the model repeating it) is masked here, once, for every
      // surface that reads the run's events: telemetry, the run history, the console, listeners.
      onEvent: maskRunEvents(emit),
      logger: logger.child({ runId: run.id }),
      tracer: run.recorder,
      resume,
      // The saved conversation goes to the store: without the secrets (the model saw them already).
      onTurn: conversation ? (messages) => void conversation.save(maskSecrets(messages)) : undefined,
      // Which calls wait for a person's decision, and who is asked (docs/approvals.md).
      approvals,
      continueFrom: continued,
      // A run that stops to wait for a decision is saved; it then leaves flight holding nothing.
      onSuspend: async (suspension) => {
        // Where its conversation stands (its saves done): the resumed part writes on from there.
        const conversation = await thread?.mark();
        const saved = {
          ...waitingRunOf(run, input, runOptions, suspension, {
            conversationId: thread?.id,
            timeoutMs: approvals?.timeoutMs,
            savedBy: parts.waiting.replica,
          }),
          ...(conversation ? { conversation } : {}),
        };
        await (run.resumes ? run.resumes.saveWaiting(saved) : parts.waiting.runs.save(saved));
        run.suspend();
        parts.waiting.saved(run.id);
      },
      history: thread?.history,
      // The continued conversation is stored too (every A2A task continues one): without the secrets, as above.
      onMessages: thread && ((messages) => thread!.onMessages(maskSecrets(messages))),
      // The conversation's summary request is the run's too: in its usage, budgets and cost from the start.
      spent: thread?.summary?.usage,
    });
    // A failed save was logged (conversation.save-failed); the run's answer still stands.
    await thread?.close().catch(() => {});
    const sampling = run.sampling.report();
    // The answer, masked once for every caller: agent.run, A2A artifacts, the run history, the store.
    const summary = thread?.summary;
    const tagged = thread ? { ...result, conversationId: thread.id, ...(summary ? { conversationSummary: summary } : {}) } : result;
    return maskSecrets(sampling ? { ...tagged, sampling } : tagged);
  } finally {
    await thread?.close().catch(() => {});
    waiting?.dispose();
  }
}
