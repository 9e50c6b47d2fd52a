/**
 * Running one run: refused while the agent drains or is closed; tracked by the lifecycle (so a drain waits
 * for it and `cancel(runId)` reaches it); connected, with the server authorizations an A2A task's client
 * can complete; resumed from a saved conversation when a triggered run is re-run under its id; then the
 * agentic loop under the live settings, its events fanned out to listeners, telemetry and the served run
 * history.
 */
import type { Logger } from "../../log.ts";
import type { RunEvent } from "../../loop/events.ts";
import { runLoop } from "../../loop/run-loop.ts";
import { createRunSignal } from "../../loop/run-signal.ts";
import { type AuthorizationAsk, withAuthorization } from "../../mcp/client/authorization-ask.ts";
import type { ModelMessage } from "../../model/language-model.ts";
import type { Telemetry } from "../../telemetry/types.ts";
import type { RunTriggerTags } from "../../triggers/runner/run-trigger-tags.ts";
import { AgentdError } from "../../wire/errors.ts";
import { withoutUndefined } from "../../_internal/without-undefined.ts";
import type { AgentConnections } from "../connections/agent-connections.ts";
import type { AgentLifecycle } from "./agent-lifecycle.ts";
import type { AgentOptions } from "../agent-options.ts";
import type { Agent } from "../agent-types.ts";
import type { LiveConfig } from "../live/live-config.ts";
import type { McpToolSet } from "../tools/mcp-tool-set.ts";
import type { SelfHost } from "../serving/serve-agent.ts";
import type { ConversationsOf, RunConversation } from "../conversations/agent-conversations.ts";

/** A fresh run id. */
export const newRunId = (): string => `run-${crypto.randomUUID()}`;

/** What a run reaches of its agent. */
export interface RunParts {
  lifecycle: AgentLifecycle;
  connect: () => Promise<void>;
  toolSet: McpToolSet;
  authorizations: Map<string, AuthorizationAsk>;
  connected: AgentConnections;
  /** The live settings (instructions, limits, prices, scope), read when each run starts. */
  settings: () => LiveConfig["settings"];
  tags: RunTriggerTags;
  listeners: ReadonlySet<(event: RunEvent) => void>;
  telemetry: () => Promise<Telemetry | undefined>;
  host: () => SelfHost | undefined;
  /** The agent's conversations: a run naming one (`conversation`) continues it. */
  conversations: ConversationsOf;
  logger: Logger;
}

/** See the module header. */
export function createRun(options: AgentOptions, parts: RunParts): Agent["run"] {
  const { lifecycle, connect, toolSet, authorizations, tags, listeners, logger } = parts;
  const { ledger, operator } = parts.connected;
  return async (input, runOptions = {}) => {
    if (!options.model)
      throw new AgentdError(
        "E_CONFIG_INVALID",
        "no model configured: set AGENT_INTELLIGENCE, --intelligence or model.intelligence (or pass model to createAgent)",
      );
    const model = options.model;
    if (lifecycle.state === "closed") throw new AgentdError("E_USAGE", "the agent is closed");
    if (lifecycle.state === "draining" || lifecycle.state === "drained")
      throw new AgentdError("E_UPSTREAM", "the agent is shutting down; not taking new runs");
    const runId = runOptions.runId ?? newRunId();
    const tracked = lifecycle.begin(runId, runOptions.signal);
    const { controller } = tracked;
    if (runOptions.askOperator) operator?.asks.set(runId, runOptions.askOperator);
    if (runOptions.askAuthorization) authorizations.set(runId, runOptions.askAuthorization);
    if (runOptions.trigger) tags.tag(runId, runOptions.trigger);
    // The conversation tier: a triggered run re-run under the same run id goes on from its saved turns, and
    // so does a run that asks for it (a served run with the caller's run id, taken over from a dead replica).
    const conversations =
      ((runOptions.trigger || runOptions.triggerEvent) && options.triggers?.specs.length) || runOptions.resumeConversation
        ? options.durability?.checkpoint?.conversations
        : undefined;
    let aborted = false;
    const settings = parts.settings();
    // A run that can get a server authorized (an A2A task) waits for it when connecting and listing tools too.
    const ask = runOptions.askAuthorization;
    // The loop's own deadline starts after connecting and listing tools: this one bounds the waits before.
    const waiting = ask ? createRunSignal(runOptions.limits?.deadlineMs ?? settings.limits?.deadlineMs, controller.signal) : undefined;
    const askSignal = waiting?.signal ?? controller.signal;
    let thread: RunConversation | undefined;
    try {
      // A conversation this run continues: loaded (and cut to its bound) before, saved after each turn.
      if (runOptions.conversation !== undefined)
        thread = await parts.conversations.forRun(runOptions.conversation, { runId, input, principal: runOptions.principal, logger });
      await (ask ? withAuthorization(connect, ask, askSignal) : connect());
      // Only native tool calling resumes (the JSON-action mode's turns are not saved).
      const resume = model.supportsTools ? await conversations?.load(runId) : undefined;
      if (resume) logger.info("conversation.resumed", { runId, messages: resume.length });
      const recorder = (await parts.telemetry())?.run({
        runId,
        parent: runOptions.traceContext,
        trigger: runOptions.triggerEvent,
      });
      if (runOptions.triggerEvent) parts.host()?.metrics.triggerLag(runOptions.triggerEvent.kind, runOptions.triggerEvent.firedAt);
      const emit = (event: RunEvent) => {
        recorder?.onEvent(event);
        // With tracing on, a request names its trace (the run's history shows it; a console links it to the backend).
        const traceparent =
          event.type === "model-request" ? recorder?.carrier({ kind: "model", turn: event.turn })?.traceparent : undefined;
        const e: RunEvent = traceparent && event.type === "model-request" ? { ...event, traceId: traceparent.split("-")[1]! } : event;
        // A triggered run's events fill its record in the served run history (a no-op for other runs).
        if (runOptions.trigger || runOptions.triggerEvent) parts.host()?.registry.observe(runId, e);
        thread?.observe(e);
        for (const l of listeners) l(e);
        runOptions.onEvent?.(e);
      };
      // The settings as they are now: a reload during the waits above applies to this run.
      const live = parts.settings();
      const result = await runLoop({
        model,
        tools: ask
          ? { list: () => withAuthorization(() => toolSet.list(), ask, askSignal), call: (n, a, c) => toolSet.call(n, a, c) }
          : toolSet,
        input,
        runId,
        instructions: live.instructions,
        // A run's own limits win where they are set: an undefined one keeps the agent's.
        limits: { ...live.limits, ...withoutUndefined(runOptions.limits) },
        prices: live.prices,
        scope: live.scope,
        outputSchema: runOptions.outputSchema,
        maxOutputRetries: runOptions.maxOutputRetries,
        signal: controller.signal,
        stream: runOptions.stream,
        backpressure: runOptions.backpressure,
        onEvent: emit,
        logger: logger.child({ runId }),
        tracer: recorder,
        resume,
        onTurn: conversations ? (messages: readonly ModelMessage[]) => void conversations.save(runId, messages) : undefined,
        history: thread?.history,
        onMessages: thread?.onMessages,
      });
      // A failed save was logged (conversation.save-failed); the run's answer still stands.
      await thread?.close().catch(() => {});
      const sampling = ledger?.takeRun(runId);
      const tagged = thread ? { ...result, conversationId: thread.id } : result;
      return sampling ? { ...tagged, sampling } : tagged;
    } catch (e) {
      // Aborted (a shutdown, a lost claim): the conversation stays for the re-run.
      aborted = AgentdError.isInstance(e) && e.code === "E_ABORTED";
      throw e;
    } finally {
      await thread?.close().catch(() => {});
      if (conversations && !aborted) await conversations.end(runId);
      ledger?.takeRun(runId);
      if (runOptions.trigger) tags.untag(runId);
      operator?.asks.delete(runId);
      if (authorizations.get(runId) === runOptions.askAuthorization) authorizations.delete(runId);
      waiting?.dispose();
      tracked.end();
    }
  };
}
