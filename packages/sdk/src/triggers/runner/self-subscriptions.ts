/**
 * Subscriptions a run arranges for itself ("the subscribe self-tool"): `agent.subscribe` adds a
 * reactive trigger at run time — the same subscription source as a declared one, so it subscribes and
 * reads at once (read-after-subscribe) and each new state of the resource is run with the instruction the
 * run gave. Scoped to the configured servers, bounded (`max`), listed in `agent://status` (`arrangedBy`).
 *
 * Their ids are stable (`self:<server>:<uri>`), so their run ids name resource states exactly like a
 * declared subscription's, and a re-arrangement after a restart (the dispatching run re-triggered) lands
 * on the same runs. Without a checkpoint they live in memory only: lost on restart, recovered when the run
 * that arranged them is re-triggered (docs/durability.md).
 */
import type { Logger } from "../../log.ts";
import { nullLogger } from "../../log.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { AgentTriggers } from "./agent-triggers.ts";
import type { TriggerStatus } from "./trigger-status.ts";

/** One self-arranged subscription, as kept (and checkpointed). */
export interface SelfSubscription {
  id: string;
  server: string;
  uri: string;
  instruction: string;
  /** The run that arranged it. */
  arrangedBy: string;
  createdAt: string;
}

/** Options of {@link SelfSubscriptions}. */
export interface SelfSubscriptionsOptions {
  /** The agent's triggers, once built. */
  triggers: () => AgentTriggers | undefined;
  /** Most at once (default 8). */
  max?: number;
  /** Servers runs may subscribe to (default: any connected one). */
  servers?: readonly string[];
  /** Poll a server that cannot push this often (else it is refused). */
  pollIntervalMs?: number;
  logger?: Logger;
}

/** What {@link SelfSubscriptions.add} did. */
export interface SubscribeOutcome {
  status: "subscribed" | "already-subscribed";
  subscription: SelfSubscription;
  trigger: TriggerStatus | undefined;
}

/** The stable trigger id of a self-arranged subscription. */
export const selfSubscriptionId = (server: string, uri: string): string => `self:${server}:${uri}`;

/** The set of self-arranged subscriptions. See the module header. */
export class SelfSubscriptions {
  readonly max: number;
  private readonly subs = new Map<string, SelfSubscription>();
  private readonly listeners = new Set<() => void>();
  private readonly logger: Logger;

  constructor(private readonly options: SelfSubscriptionsOptions) {
    this.max = options.max ?? 8;
    this.logger = options.logger ?? nullLogger;
  }

  /** Copies of every self-arranged subscription, oldest first. */
  list(): SelfSubscription[] {
    return [...this.subs.values()].map((s) => ({ ...s }));
  }

  /** Listen to additions and removals; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Subscribe the agent to `uri` on `server`, running `instruction` on each new state. The same server and
   * URI again is `already-subscribed` (the first instruction stays). Throws `E_SUPERVISOR` (a line the model
   * can act on) when refused: no triggers running, a server out of scope, the maximum reached, a bad template.
   */
  async add(
    request: { server: string; uri: string; instruction: string },
    arrangedBy: string,
    how: { restored?: boolean; createdAt?: string } = {},
  ): Promise<SubscribeOutcome> {
    const triggers = this.options.triggers();
    const refuse = (why: string) => new AgentdError("E_SUPERVISOR", `subscription refused: ${why}`);
    if (!triggers) throw refuse("this agent has no running triggers (start it in reactive mode)");
    const { server, uri, instruction } = request;
    if (!server || !uri || !instruction.trim()) throw refuse("server, uri and instruction are all required");
    const allowed = this.options.servers;
    if (allowed && !allowed.includes(server))
      throw refuse(`server '${server}' is not one runs may subscribe to (${allowed.join(", ") || "none"})`);
    const id = selfSubscriptionId(server, uri);
    const existing = this.subs.get(id);
    if (existing)
      return { status: "already-subscribed", subscription: { ...existing }, trigger: triggers.status().find((t) => t.id === id) };
    if (this.subs.size >= this.max)
      throw refuse(`${this.subs.size} of at most ${this.max} self-arranged subscriptions exist; unsubscribe one first`);
    const sub: SelfSubscription = { id, server, uri, instruction, arrangedBy, createdAt: how.createdAt ?? new Date().toISOString() };
    this.subs.set(id, sub);
    let trigger: TriggerStatus;
    try {
      trigger = await triggers.addSubscription(
        {
          kind: "subscription",
          id,
          server,
          uri,
          instruction,
          pollIntervalMs: this.options.pollIntervalMs,
        },
        { arrangedBy },
      );
    } catch (error) {
      this.subs.delete(id);
      throw refuse(error instanceof Error ? error.message : String(error));
    }
    if (trigger.state === "unavailable") {
      this.subs.delete(id);
      await triggers.removeTrigger(id);
      throw refuse(trigger.reason ?? "the subscription could not start");
    }
    this.logger.info("trigger.self-subscribed", {
      trigger: id,
      server,
      uri,
      arrangedBy,
      state: trigger.state,
      restored: how.restored || undefined,
    });
    this.changed();
    return { status: "subscribed", subscription: { ...sub }, trigger };
  }

  /** Cancel a self-arranged subscription (by server and URI). False when there is none. */
  async remove(server: string, uri: string, by: string): Promise<boolean> {
    const id = selfSubscriptionId(server, uri);
    if (!this.subs.delete(id)) return false;
    await this.options.triggers()?.removeTrigger(id);
    this.logger.info("trigger.self-unsubscribed", { trigger: id, server, uri, by });
    this.changed();
    return true;
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
