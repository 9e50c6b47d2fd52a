/**
 * An agent's supervisor checkpoint, off by default (`capabilities.checkpoint`). While the
 * agent runs, every change of a supervisor-owned fact — a self-arranged subscription added or removed, a
 * triggered run starting or ending, a subagent handle changing — schedules a (debounced, compare-and-set)
 * write of the whole document to `checkpoints/<identity>` in an MCP store.
 *
 * On start, before any trigger source starts, the document is read back and applied: self-arranged
 * subscriptions are arranged again (each subscribes and reads at once, so a change made while agentd was
 * down runs), working subagent handles are started again from their retained payloads (same id, same run
 * id), finished ones are kept for their results. Declared subscriptions come from the config, never from
 * the checkpoint, and every declared one is read after subscribing as without a checkpoint: the checkpoint
 * is an optimisation, never the source of truth. A document that cannot be used is one warning line.
 */
import type { Logger } from "../../log.ts";
import type { Supervisor } from "../../supervisor/supervisor.ts";
import type { AgentTriggers } from "../../triggers/runner/agent-triggers.ts";
import type { SelfSubscriptions } from "../../triggers/runner/self-subscriptions.ts";
import type { TriggerSpec } from "../../triggers/runner/trigger-specs.ts";
import {
  CHECKPOINT_FORMAT,
  CHECKPOINT_VERSION,
  checkpointKey,
  parseCheckpoint,
  type CheckpointDocument,
  type CheckpointRun,
} from "./checkpoint-format.ts";
import { CheckpointTasks } from "./checkpoint-tasks.ts";
import { CheckpointServedTasks } from "./checkpoint-served-tasks.ts";
import type { ServedTaskRecord } from "../../serve/served-task-journal.ts";
import { CheckpointWriter, type CheckpointStore } from "./checkpoint-writer.ts";
import type { RunConversations } from "./run-conversations.ts";

/** Options of {@link AgentCheckpoint}. */
export interface AgentCheckpointOptions {
  /** Whose checkpoint: stable across restarts of the same agent (e.g. the pod name). */
  identity: string;
  /** The store, connected on first use. */
  store: () => Promise<CheckpointStore>;
  /** Closes the store connection. */
  closeStore?: () => Promise<void>;
  debounceMs?: number;
  logger: Logger;
  /** The conversation tier (off by default): triggered runs resume mid-conversation after a restart. */
  conversations?: RunConversations;
}

/** The parts of an agent whose facts are checkpointed. */
export interface CheckpointedParts {
  specs: readonly TriggerSpec[];
  triggers: AgentTriggers;
  selfSubscriptions?: SelfSubscriptions;
  supervisor?: Supervisor;
}

/** What {@link AgentCheckpoint.restore} did. */
export interface RestoreReport {
  found: boolean;
  /** Why a found document was not used. */
  ignored?: string;
  subscriptions: number;
  handles: { respawned: number; kept: number };
  /** Remote tasks a re-run of their run re-attaches to. */
  tasks: number;
  /** Runs that were in flight when the checkpoint was written (re-run by reconciliation, not from here). */
  interrupted: string[];
}

/** See the module header. */
export class AgentCheckpoint {
  readonly key: string;
  readonly writer: CheckpointWriter;
  /** The remote tasks runs started: the agent's MCP clients note them here (their task journal). */
  readonly tasks = new CheckpointTasks();
  /** Triggered runs' saved conversations, when `durability.checkpoint.resumeConversations` is set. */
  readonly conversations: RunConversations | undefined;
  /** The tasks `agentd serve` runs for clients (the served task table notes them here). */
  readonly served = new CheckpointServedTasks();
  private parts: CheckpointedParts | undefined;
  /** The document read for the served tasks before the triggers restored it: its facts are written back as they were. */
  private base: CheckpointDocument | undefined;
  private readonly runs = new Map<string, CheckpointRun>();
  private readonly offs: Array<() => void> = [];

  constructor(private readonly options: AgentCheckpointOptions) {
    this.key = checkpointKey(options.identity);
    this.conversations = options.conversations;
    this.writer = new CheckpointWriter({
      store: options.store,
      key: this.key,
      build: () => this.build(),
      debounceMs: options.debounceMs,
      logger: options.logger,
    });
    this.served.onChange(() => this.writer.schedule());
  }

  /**
   * The served tasks to re-create after a restart: read from the checkpoint once (by whichever of this and
   * {@link restore} comes first). A store that cannot be reached or a document that cannot be used gives none.
   */
  async servedTasks(): Promise<ServedTaskRecord[]> {
    if (!this.served.isLoaded) {
      const { logger } = this.options;
      let records: ServedTaskRecord[] = [];
      try {
        const stored = await (await this.options.store()).get(this.key);
        const parsed = stored ? parseCheckpoint(stored.value) : undefined;
        if (stored && parsed?.ok && parsed.document.identity === this.options.identity && !this.served.isLoaded) {
          records = parsed.document.servedTasks ?? [];
          if (!this.parts) {
            this.base = parsed.document;
            this.writer.version = stored.version;
          }
        } else if (stored && !this.parts) {
          this.writer.version = stored.version;
          logger.warn("checkpoint.ignored", {
            key: this.key,
            reason: parsed?.ok ? `it belongs to '${parsed.document.identity}'` : (parsed?.reason ?? "unreadable"),
            message: "served tasks are not restored",
          });
        }
      } catch (error) {
        logger.warn("checkpoint.unavailable", {
          key: this.key,
          error: error instanceof Error ? error.message : String(error),
          message: "served tasks are not restored",
        });
      }
      this.served.load(records);
    }
    return this.served.list();
  }

  /** Read the checkpoint, apply it to `parts`, then follow their changes. Never throws for a bad document. */
  async restore(parts: CheckpointedParts): Promise<RestoreReport> {
    this.parts = parts;
    const { logger } = this.options;
    const report: RestoreReport = { found: false, subscriptions: 0, handles: { respawned: 0, kept: 0 }, tasks: 0, interrupted: [] };
    let stored: Awaited<ReturnType<CheckpointStore["get"]>>;
    try {
      stored = await (await this.options.store()).get(this.key);
    } catch (error) {
      // The store is down: start from the config alone (as without the checkpoint); writes retry until it is back.
      logger.warn("checkpoint.unavailable", {
        key: this.key,
        error: error instanceof Error ? error.message : String(error),
        message: "rebuilding from the config and reconciling instead",
      });
      stored = undefined;
    }
    if (stored) {
      report.found = true;
      this.writer.version = stored.version;
      const parsed = parseCheckpoint(stored.value);
      if (!parsed.ok) report.ignored = parsed.reason;
      else if (parsed.document.identity !== this.options.identity) report.ignored = `it belongs to '${parsed.document.identity}'`;
      else await this.apply(parsed.document, parts, report);
      if (report.ignored)
        logger.warn("checkpoint.ignored", {
          key: this.key,
          reason: report.ignored,
          message: "rebuilding from the config and reconciling instead",
        });
    }
    logger.info("checkpoint.restored", {
      key: this.key,
      found: report.found,
      ignored: report.ignored || undefined,
      subscriptions: report.subscriptions,
      ...report.handles,
      tasks: report.tasks,
      interrupted: report.interrupted,
    });
    this.follow(parts);
    this.writer.schedule();
    return report;
  }

  /**
   * Resume a run taken over from a dead replica (its claim's lease expired): from that replica's checkpoint
   * (`checkpoints/<previousHolder>`), adopt what the run had under way — its working subagent handles,
   * started again from their payloads under the same ids and run ids, and the subscriptions it arranged —
   * and hand them over: they are removed from the old checkpoint (compare-and-set), so a restart of that
   * replica does not start them a second time. Nothing found, or a document that cannot be used: the run
   * is rebuilt from scratch, as without a checkpoint.
   */
  async adopt(runId: string, previousHolder: string): Promise<void> {
    const parts = this.parts;
    if (!parts || previousHolder === this.options.identity) return;
    const { logger } = this.options;
    const store = await this.options.store();
    const key = checkpointKey(previousHolder);
    const stored = await store.get(key);
    if (!stored) return;
    const parsed = parseCheckpoint(stored.value);
    if (!parsed.ok) {
      logger.warn("checkpoint.ignored", { key, runId, reason: parsed.reason, message: "running the taken-over run from scratch" });
      return;
    }
    const doc = parsed.document;
    const handles = doc.handles.filter((h) => h.owner === runId && (h.status === "working" || !parts.supervisor?.get(h.id)));
    const subs = doc.subscriptions.filter((s) => s.origin === "self" && s.arrangedBy === runId);
    const tasks = (doc.tasks ?? []).filter((t) => t.runId === runId);
    if (!handles.length && !subs.length && !tasks.length) return;
    // Hand over first: if another replica adopted them meanwhile, the compare-and-set fails and we do not.
    const rest: CheckpointDocument = {
      ...doc,
      writtenAt: new Date().toISOString(),
      handles: doc.handles.filter((h) => !handles.includes(h)),
      subscriptions: doc.subscriptions.filter((s) => !subs.includes(s)),
      routes: doc.routes.filter((r) => !subs.some((s) => s.id === r.triggerId)),
      runs: doc.runs.filter((r) => r.runId !== runId),
      tasks: doc.tasks?.filter((t) => !tasks.includes(t)),
    };
    const handed = await store.compareAndSet(key, stored.version, rest);
    if (!handed.ok) {
      logger.warn("checkpoint.adopt-conflict", {
        key,
        runId,
        message: "the checkpoint changed while adopting: running the taken-over run from scratch",
      });
      return;
    }
    for (const sub of subs)
      await parts.selfSubscriptions?.add(sub, runId, { restored: true, createdAt: sub.createdAt || undefined }).catch((error: unknown) => {
        logger.warn("checkpoint.subscription-dropped", {
          trigger: sub.id,
          message: error instanceof Error ? error.message : String(error),
        });
      });
    this.tasks.load(tasks);
    const actions = parts.supervisor?.restore(handles) ?? [];
    logger.info("checkpoint.adopted", {
      runId,
      from: previousHolder,
      subscriptions: subs.length,
      tasks: tasks.length,
      handles: actions.filter((a) => a.action === "respawned").map((a) => a.id),
    });
  }

  /** Write what is pending and stop following changes (before subagents are stopped at shutdown). */
  async close(): Promise<void> {
    for (const off of this.offs.splice(0)) off();
    await this.writer.close();
    await this.conversations?.close();
    await this.options.closeStore?.();
  }

  private async apply(doc: CheckpointDocument, parts: CheckpointedParts, report: RestoreReport): Promise<void> {
    const { logger } = this.options;
    const declared = new Set(parts.specs.map((s) => s.id));
    for (const sub of doc.subscriptions) {
      if (sub.origin === "declared") {
        if (!declared.has(sub.id))
          logger.info("checkpoint.declared-gone", { trigger: sub.id, message: "no longer in the config: not restored" });
        continue;
      }
      if (!parts.selfSubscriptions) {
        logger.warn("checkpoint.subscription-dropped", {
          trigger: sub.id,
          message: "triggers.selfSubscribe is not set: a self-arranged subscription cannot be restored",
        });
        continue;
      }
      try {
        await parts.selfSubscriptions.add(sub, sub.arrangedBy ?? "checkpoint", {
          restored: true,
          createdAt: sub.createdAt || undefined,
        });
        report.subscriptions++;
      } catch (error) {
        logger.warn("checkpoint.subscription-dropped", {
          trigger: sub.id,
          message: error instanceof Error ? error.message : String(error),
        });
      }
    }
    if (doc.handles.length && !parts.supervisor)
      logger.warn("checkpoint.handles-dropped", { handles: doc.handles.length, message: "subagents are not configured" });
    for (const r of parts.supervisor?.restore(doc.handles) ?? []) {
      if (r.action === "respawned") report.handles.respawned++;
      if (r.action === "kept") report.handles.kept++;
    }
    // Only tasks of runs that were in flight: a re-run of one of those re-attaches to them.
    const interrupted = new Set(doc.runs.map((r) => r.runId));
    const tasks = (doc.tasks ?? []).filter((t) => interrupted.has(t.runId));
    this.tasks.load(tasks);
    this.served.load(doc.servedTasks ?? []);
    report.tasks = tasks.length;
    report.interrupted = [...interrupted];
  }

  private follow(parts: CheckpointedParts): void {
    const changed = () => this.writer.schedule();
    if (parts.selfSubscriptions) this.offs.push(parts.selfSubscriptions.onChange(changed));
    this.offs.push(
      parts.triggers.on("run-start", ({ runId, triggerId }) => {
        this.runs.set(runId, { runId, triggerId, startedAt: new Date().toISOString() });
        changed();
      }),
      parts.triggers.on("run-end", ({ runId }) => {
        this.tasks.endRun(runId);
        if (this.runs.delete(runId)) changed();
      }),
      this.tasks.onChange(changed),
    );
    if (parts.supervisor) this.offs.push(parts.supervisor.table.onChange(changed));
  }

  private build(): Omit<CheckpointDocument, "writtenAt"> {
    const parts = this.parts;
    if (!parts) {
      // Serving without triggers (or before they start): only the served tasks are ours to write.
      const b = this.base;
      return {
        format: CHECKPOINT_FORMAT,
        version: CHECKPOINT_VERSION,
        identity: this.options.identity,
        subscriptions: b?.subscriptions ?? [],
        routes: b?.routes ?? [],
        runs: b?.runs ?? [],
        handles: b?.handles ?? [],
        tasks: b?.tasks,
        ...this.servedPart(),
      };
    }
    const self = parts.selfSubscriptions?.list() ?? [];
    const declared = parts.specs.flatMap((s) =>
      s.kind === "subscription"
        ? [{ id: s.id, server: s.server, uri: s.uri, instruction: s.instruction, origin: "declared" as const }]
        : [],
    );
    return {
      format: CHECKPOINT_FORMAT,
      version: CHECKPOINT_VERSION,
      identity: this.options.identity,
      subscriptions: [...declared, ...self.map((s) => ({ ...s, origin: "self" as const }))],
      routes: [
        ...parts.specs.map((s) => ({ triggerId: s.id, kind: s.kind, instruction: s.instruction })),
        ...self.map((s) => ({ triggerId: s.id, kind: "subscription" as const, instruction: s.instruction })),
      ],
      runs: [...this.runs.values()],
      handles: parts.supervisor?.snapshot().handles ?? [],
      tasks: this.tasks.list(),
      ...this.servedPart(),
    };
  }

  /** The served tasks, when there are any (a document without them is unchanged from before they were kept). */
  private servedPart(): { servedTasks?: ServedTaskRecord[] } {
    const list = this.served.list();
    return list.length ? { servedTasks: list } : {};
  }
}

/** The trigger hooks of a checkpoint: restore when the triggers start, adopt a run taken over from a dead replica. */
export function checkpointHooks(
  checkpoint: AgentCheckpoint,
  parts: () => CheckpointedParts,
): { beforeStart: () => Promise<void>; onTakeover: (runId: string, previousHolder: string) => Promise<void> } {
  return {
    beforeStart: async () => void (await checkpoint.restore(parts())),
    onTakeover: (runId, previousHolder) => checkpoint.adopt(runId, previousHolder),
  };
}
