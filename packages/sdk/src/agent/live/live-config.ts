/**
 * The part of an agent's configuration a reload may change while it runs (reload.ts): the live settings
 * each new run reads, and the triggers, swapped when a reload changes them — the old ones stop taking
 * events and their runs finish (they are stopped with the agent if it closes first), the new ones are armed.
 */
import type { Logger } from "../../log.ts";
import { MAX_TIMEOUT_MS } from "../../_internal/timer.ts";
import { AgentdError } from "../../wire/errors.ts";
import { same, triggerDiff, type LiveSettings, type ReloadPlan, type ReloadReport } from "./reload.ts";
import type { AgentTriggerOptions } from "./configured-triggers.ts";
import type { AgentTriggers } from "../../triggers/runner/agent-triggers.ts";

/** What {@link LiveConfig} needs from its agent. */
export interface LiveConfigOptions {
  /** The settings each new run reads, held where the runs read them; a reload replaces `current`. */
  settings: { current: Omit<LiveSettings, "triggers"> };
  triggers: AgentTriggerOptions | undefined;
  build: (o: AgentTriggerOptions) => AgentTriggers | undefined;
  /** Where a reload reads the settings again (absent: reload is refused). */
  source: (() => Promise<ReloadPlan>) | undefined;
  hasModel: boolean;
  /** Whether new triggers should be armed at once (`old`: the triggers they replace). */
  armNew: (old: AgentTriggers | undefined) => boolean;
  /** Applies changed served prompts and roots before the reload reports (their sessions are notified). */
  applyLive?: (settings: Omit<LiveSettings, "triggers">, changed: ReadonlySet<"prompts" | "roots">) => Promise<void>;
  /** Called with each triggers object a reload builds (e.g. to notify status subscribers). */
  onTriggers?: (t: AgentTriggers) => void;
  logger: Logger;
}

/** See the module header. */
export class LiveConfig {
  triggers: AgentTriggers | undefined;
  private triggerOptions: AgentTriggerOptions | undefined;
  private readonly retiring = new Set<AgentTriggers>();
  private readonly listeners = new Set<(report: ReloadReport, plan: ReloadPlan) => void>();

  constructor(private readonly o: LiveConfigOptions) {
    this.triggerOptions = o.triggers;
    this.triggers = o.triggers?.specs.length ? o.build(o.triggers) : undefined;
  }

  /** The live settings (instructions, limits, prices, scope, prompts, roots) as they are now. */
  get settings(): Omit<LiveSettings, "triggers"> {
    return this.o.settings.current;
  }

  /** The current triggers and those a reload replaced whose runs are still finishing. */
  allTriggers(): AgentTriggers[] {
    return [...(this.triggers ? [this.triggers] : []), ...this.retiring];
  }

  /** Listen to successful reloads; returns the unsubscribe function. */
  onReload(listener: (report: ReloadReport, plan: ReloadPlan) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Read the settings again and apply them; rejects (nothing applied) when the source or the plan is invalid. */
  async reload(): Promise<ReloadReport> {
    if (!this.o.source) throw new AgentdError("E_USAGE", "this agent was not built from a configuration file: there is nothing to reload");
    const plan = await this.o.source();
    const { triggers: nextTriggers, ...next } = plan.live;
    const diff = nextTriggers ? triggerDiff(this.triggerOptions, nextTriggers) : undefined;
    const triggersChanged = diff !== undefined && diff.added.length + diff.removed.length + diff.changed.length > 0;
    if (triggersChanged && nextTriggers?.specs.length && !this.o.hasModel)
      throw new AgentdError("E_CONFIG_INVALID", "triggers are configured but no model is: set AGENT_INTELLIGENCE or model.intelligence");
    // Prompts and roots switched on or off change what was declared: that waits for a restart (the source names it).
    if ((this.settings.prompts === undefined) !== (next.prompts === undefined)) next.prompts = this.settings.prompts;
    if ((this.settings.roots === undefined) !== (next.roots === undefined)) next.roots = this.settings.roots;
    const changed: string[] = (["instructions", "limits", "prices", "scope", "prompts", "roots"] as const).filter(
      (k) => !same(this.settings[k], next[k]),
    );
    this.o.settings.current = next;
    const replaced = new Set((["prompts", "roots"] as const).filter((k) => changed.includes(k)));
    if (replaced.size) await this.o.applyLive?.(next, replaced);
    if (triggersChanged) {
      await this.replaceTriggers(nextTriggers!);
      changed.push("triggers");
    }
    const report: ReloadReport = { changed, triggers: triggersChanged ? diff : undefined, restartRequired: plan.restartRequired };
    this.o.logger.info("agent.reloaded", { ...report });
    for (const l of this.listeners) l(report, plan);
    return report;
  }

  private async replaceTriggers(next: AgentTriggerOptions): Promise<void> {
    const old = this.triggers;
    const arm = this.o.armNew(old);
    this.triggerOptions = next;
    this.triggers = next.specs.length ? this.o.build(next) : undefined;
    if (this.triggers) this.o.onTriggers?.(this.triggers);
    if (old) {
      this.retiring.add(old);
      void old.stop({ graceMs: MAX_TIMEOUT_MS }).finally(() => this.retiring.delete(old));
    }
    if (arm && this.triggers) await this.triggers.start();
  }
}
