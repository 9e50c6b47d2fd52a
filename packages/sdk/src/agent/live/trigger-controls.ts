/**
 * What a caller may do to an agent's triggers and configuration — arm, pause, resume, reload — each refused
 * with one clear line when there is nothing to act on or the agent is shutting down. The agent's methods and
 * the A2A operator channel both use these, so the refusals read the same from either.
 */
import type { TriggersStarted } from "../../triggers/runner/agent-triggers.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { AgentLifecycle } from "../run/agent-lifecycle.ts";
import type { LiveConfig } from "./live-config.ts";
import type { ReloadReport } from "./reload.ts";

/** See the module header. */
export interface TriggerControls {
  start(): Promise<TriggersStarted>;
  pause(ids?: readonly string[]): Promise<string[]>;
  resume(ids?: readonly string[]): Promise<string[]>;
  reload(): Promise<ReloadReport>;
}

/** See the module header. */
export function triggerControls(config: LiveConfig, lifecycle: Pick<AgentLifecycle, "state">): TriggerControls {
  const noTriggers = () => new AgentdError("E_USAGE", "no trigger is configured: there is nothing to pause or resume");
  return {
    async start() {
      if (!config.triggers)
        throw new AgentdError("E_USAGE", "no trigger is configured: pass triggers.specs (or a config with a triggers block)");
      if (lifecycle.state !== "running") throw new AgentdError("E_USAGE", "the agent is shutting down");
      return config.triggers.start();
    },
    async pause(ids) {
      if (!config.triggers) throw noTriggers();
      return config.triggers.pause(ids);
    },
    async resume(ids) {
      if (!config.triggers) throw noTriggers();
      if (lifecycle.state !== "running") throw new AgentdError("E_USAGE", "the agent is draining: its triggers stay stopped");
      return config.triggers.resume(ids);
    },
    reload() {
      if (lifecycle.state !== "running")
        return Promise.reject(new AgentdError("E_USAGE", "the agent is draining: it takes no new configuration"));
      return config.reload();
    },
  };
}
