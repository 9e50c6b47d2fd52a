/**
 * When the agent serves: the one served agent (agent.run, agent://status, run history, the console's facts,
 * the operator channel) built the first time the agent serves, shared by every endpoint it serves on;
 * `/readyz` asks whether the model is set and the required servers connect. Before the first endpoint
 * answers, served tasks kept in the checkpoint are restored, so a client polling a task from before a
 * restart finds it working. A served run that ends waiting for a person's decision keeps its caller waiting
 * (holding nothing but the caller's request) until it is resumed here; one resumed here with no caller
 * waiting (after a restart, say) is recorded in the run history all the same (waitingRunRecord).
 */
import type { OperatorControl } from "../../a2a/server/operator.ts";
import type { LogRecord, Logger } from "../../log.ts";
import type { ManagedMcpClient } from "../../mcp/client/managed/managed-client.ts";
import { canonicalOperators, LOCAL_PRINCIPAL } from "../../serve/principal.ts";
import { failureOf, recordSucceeded } from "../../serve/run-once.ts";
import type { RunRegistry, RunVia } from "../../serve/run-registry.ts";
import type { DeskResumerParts, OrphanRecord } from "../run/desk-resumer.ts";
import type { AgentWaiting } from "../run/run-waiting.ts";
import { a2aRunWaits } from "./a2a-run-waits.ts";
import type { WaitingRun } from "../run/waiting-runs.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { AgentCheckpoint } from "../checkpoint/agent-checkpoint.ts";
import { agentConsoleFacts } from "../console/agent-facts.ts";
import type { AgentOptions } from "../types/agent-options.ts";
import type { AgentLifecycleStatus } from "../run/run-options.ts";
import type { AgentLiveConfig } from "../live/agent-live-config.ts";
import type { AgentLifecycle } from "../run/agent-lifecycle.ts";
import type { SamplingLedger } from "../sampling/sampling-ledger.ts";
import { ServedAgent, type ServeOptions, type ServedEndpoint } from "./served-agent.ts";
import type { ServedMcpOptions, ServedRunner } from "../../serve/served-mcp.ts";
import type { RunObservers } from "../run/run-agent.ts";
import type { ServedConversations } from "../../serve/served-conversations.ts";

/** What serving reaches of its agent: all built before it; it registers itself with the lifecycle, the live configuration and the runs when it first serves. */
export interface ServingParts {
  /** The agent's runs (refused once the served agent drains). */
  run: ServedRunner["run"];
  connect: () => Promise<void>;
  clients: ReadonlyMap<string, ManagedMcpClient>;
  live: AgentLiveConfig;
  lifecycle: AgentLifecycle;
  /** What the agent's status says (with the endpoints served now). */
  status: (endpoints: number) => AgentLifecycleStatus;
  /** What the A2A operator channel may do to the agent (drain, cancel, triggers, reload). */
  control: Omit<OperatorControl, "lifecycle">;
  ledger: SamplingLedger | undefined;
  /** The subagent and `serve: true` tools on the served surface (served-own-tools.ts). */
  extend: Pick<ServedMcpOptions, "extend">;
  /** The checkpoint served tasks are kept in (with `capabilities.tasks`). */
  servedCheckpoint: AgentCheckpoint | undefined;
  mirrorTo: (sink: (record: LogRecord) => void) => void;
  /** The agent's conversations: served to their owners (`agent://conversations`) and named by A2A's `contextId`. */
  conversations: ServedConversations;
  /** Where the runs send what the served history and metrics keep: filled in when the served agent is built. */
  observers: { current: RunObservers | undefined };
  /** Runs saved waiting for a decision: a served caller waits on its run until it is resumed here. */
  waiting: AgentWaiting;
  /** `agent.resume`: a run whose questions are all decided at the desk is resumed by the replica that claims it. */
  resume: DeskResumerParts["resume"];
  logger: Logger;
}

/** See the module header. */
export class AgentServing {
  /** The served agent, once the agent serves. */
  served: ServedAgent | undefined;
  /** Endpoints being served. */
  count = 0;
  private restored: Promise<void> | undefined;

  constructor(
    private readonly options: AgentOptions,
    private readonly parts: ServingParts,
  ) {}

  /** Serve one more endpoint (the host is built by the first): see {@link Agent.serve}. */
  async serve(asked: ServeOptions | undefined): Promise<ServedEndpoint> {
    const serveOptions = this.withDefaults(asked ?? (await this.options.serve?.endpoint?.()) ?? { stdio: true });
    const h = this.servedAgent();
    const { servedCheckpoint, logger } = this.parts;
    // Before the first endpoint answers: a client polling a task from before a restart finds it working.
    if (servedCheckpoint)
      await (this.restored ??= servedCheckpoint.servedTasks().then((records) => {
        const restored = h.mcp.tasks?.restore(records) ?? 0;
        if (records.length) logger.info("checkpoint.served-tasks-restored", { key: servedCheckpoint.key, tasks: restored });
      }));
    const serving = await h.serve(serveOptions);
    this.count++;
    return serving;
  }

  /** An HTTP endpoint gets the agent's A2A endpoint unless it says otherwise; the card's version is the agent's. */
  private withDefaults(o: ServeOptions): ServeOptions {
    if (!("http" in o)) return o;
    const configured = this.options.serve?.a2a;
    const a2a = o.a2a === true ? (configured ?? {}) : o.a2a === false ? undefined : (o.a2a ?? configured);
    if (!a2a) return { ...o, a2a: false };
    return { ...o, a2a: { ...a2a, card: { ...a2a.card, version: a2a.card?.version ?? this.options.serve?.version } } };
  }

  /** For `/readyz`: a model is set and the required servers connect. */
  private readonly ready = async (): Promise<{ ok: true } | { ok: false; reason: string }> => {
    if (!this.options.model) return { ok: false, reason: "model not configured" };
    try {
      await this.parts.connect();
      return { ok: true };
    } catch (e) {
      return { ok: false, reason: `not ready: ${(e as Error).message}` };
    }
  };

  /** The served agent, built once. */
  servedAgent(): ServedAgent {
    if (this.served) return this.served;
    const { options, parts, ready } = this;
    const { config } = parts.live;
    const { ledger, logger } = parts;
    const serve = options.serve ?? {};
    const notifications = options.capabilities?.serverNotifications === true;
    const triggers = config.triggers || options.reload ? { triggers: () => config.triggers?.status() ?? [] } : {};
    const created: ServedAgent = new ServedAgent({
      runner: {
        run: (input, o) =>
          created.isDraining
            ? Promise.reject(new AgentdError("E_UPSTREAM", "agentd is shutting down; not taking new runs"))
            : // An A2A task follows its saved run itself (a2a-run-waits.ts): it shows the question meanwhile.
              parts
                .run(input, o)
                .then((r) =>
                  r.status === "waiting" && o.origin?.kind !== "a2a"
                    ? parts.waiting.untilResumed(r, { ...o, releasedOnStop: true, asks: { askCaller: o.askCaller } })
                    : r,
                ),
      },
      version: serve.version,
      capabilities: { serverNotifications: notifications, tasks: options.capabilities?.tasks || undefined },
      operators: serve.operators ? canonicalOperators(serve.operators, "serve.operators") : undefined,
      runHistory: serve.runHistory,
      taskSupport: serve.taskSupport,
      taskJournal: parts.servedCheckpoint?.served,
      servedRuns: options.durability?.servedRuns,
      conversations: parts.conversations,
      prompts: config.settings.prompts,
      approvals: options.approvals?.desk ? { desk: options.approvals.desk, askCaller: options.approvals.askCaller } : undefined,
      a2aRunWaits: options.approvals?.desk ? a2aRunWaits(parts.waiting) : undefined,
      ...triggers,
      control: { ...parts.control, lifecycle: () => parts.status(this.count) },
      sampling: ledger ? () => ledger.byServer() : undefined,
      // Read at each look: a reload may set or change them.
      prices: () => config.settings.prices,
      ...parts.extend,
      ready,
      console: agentConsoleFacts({
        version: serve.version,
        clients: parts.clients,
        mcpServers: options.mcpServers,
        a2aAgents: options.a2aAgents,
        supervisor: options.subagents,
        lifecycle: () => ({ ...parts.status(this.count) }),
        ready,
        prices: () => config.settings.prices,
        conversations: parts.conversations,
        ...triggers,
        // A reload may replace the triggers: each listener follows whichever table is current.
        onTriggersChange: (listener) => {
          let off = config.triggers?.onChange(listener);
          const offReload = config.onReload(() => {
            off?.();
            off = config.triggers?.onChange(listener);
            listener();
          });
          return () => {
            off?.();
            offReload();
          };
        },
      }),
      logger,
    });
    if (notifications) parts.mirrorTo((r) => created.mcp.mirrorLog(r));
    // Questions that expired while no process watched them are decided now (approvals.onTimeout).
    void options.approvals?.desk?.start?.().catch((e: unknown) => logger.warn("approvals.sweep-failed", { error: String(e) }));
    // From now on served and triggered runs suspend at the desk, and this replica resumes those it claims.
    const desk = options.approvals?.desk;
    if (desk) parts.waiting.attachDesk({ desk, resume: parts.resume, record: (run) => waitingRunRecord(created.registry, run), logger });
    this.register(created);
    config.triggers?.onChange(() => void created.mcp.server.notifyResourceUpdated("agent://status"));
    this.served = created;
    return created;
  }

  /** The served agent, once built, registers itself with what was built before it. */
  private register(served: ServedAgent): void {
    const { parts } = this;
    parts.observers.current = {
      observe: (run, e) => served.registry.observe(run.id, e),
      triggered: (kind, firedAt) => served.metrics.triggerLag(kind, firedAt),
    };
    parts.lifecycle.attach({
      stopTaking: () => {
        served.stopTaking();
        // Callers following a saved waiting run are answered now: the run holds nothing open, the stop need not wait.
        parts.waiting.releaseFollowers();
      },
      settle: (deadline) => served.settle(deadline),
      interrupt: (message) => served.interrupt(message),
      // Served tasks stopped by the shutdown stay working in the checkpoint: a restart re-runs them.
      keepTasks: parts.servedCheckpoint ? () => served.mcp.tasks?.close() : undefined,
      close: () => served.close(),
    });
    const count = () => this.count;
    parts.live.attach({
      get endpoints() {
        return count();
      },
      registry: served.registry,
      setPrompts: (prompts) => served.mcp.prompts?.set(prompts),
      notifyStatus: () => void served.mcp.server.notifyResourceUpdated("agent://status"),
    });
  }
}

/** The run id as the run history keys it: a served principal's run id without its scope suffix (principal.ts). */
function historyId(run: WaitingRun): string {
  const at = run.runId.lastIndexOf("@");
  return run.principal && run.principal !== LOCAL_PRINCIPAL && at > 0 ? run.runId.slice(0, at) : run.runId;
}

/** The run history's record of a run resumed with no caller waiting on it here (after a restart, on another replica). */
export function waitingRunRecord(registry: RunRegistry, run: WaitingRun): OrphanRecord {
  const owner = run.principal ?? LOCAL_PRINCIPAL;
  const id = historyId(run);
  const via = ["mcp", "a2a", "trigger", "console"].includes(run.origin.kind) ? (run.origin.kind as RunVia) : undefined;
  registry.start(id, run.input, owner, { via, trigger: run.origin.trigger });
  return {
    onEvent: (e) => registry.observe(id, e, owner),
    finished: (result) => recordSucceeded(registry, id, result, owner),
    failed: (e) => {
      const { code, message, usage } = failureOf(e);
      registry.fail(id, { code, message }, usage, owner);
    },
  };
}
