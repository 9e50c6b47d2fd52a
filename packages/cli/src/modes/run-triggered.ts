/**
 * The long-running modes of `agentd run` (`interval`, `cron`, `reactive`): connect the MCP servers, start
 * the mode's triggers (subscribe + read, arm clocks, catch up missed ticks), run each event through the
 * agent, print each run's result, and keep going until SIGTERM/SIGINT — or until every trigger has ended
 * (an interval that reached `--max-runs`).
 *
 * A failed run is logged (`trigger.run-end` with its error code, e.g. `E_BUDGET_TURNS`) and the mode
 * carries on. Shutdown: stop taking triggers, let in-flight runs finish for the grace period, cancel the
 * rest, close the MCP children, exit 130/143. A natural end exits 0, or with the code of the last failed
 * run (1 run failed, 3 budget, 4 upstream).
 */
import { AgentdError, createAgentFromConfig } from "@agentd/sdk";
import type { ResolvedConfig } from "@agentd/sdk/config";
import { scrubSecrets } from "@agentd/sdk/telemetry";
import { reloadOnChange } from "@agentd/sdk/agent";
import { agentOptions } from "../agent-options.ts";
import { EXIT, exitCodeFor } from "../exit-codes.ts";
import { stderrLogger } from "../telemetry.ts";
import { answerFor, formatRunLine } from "./format-result.ts";
import type { Mode, TriggerModePlan } from "./mode-plan.ts";
import { drainingRecord, interruptedBy, shutdownSignals } from "./shutdown-signals.ts";

/** What a long-running mode needs. */
export interface TriggeredOptions {
  mode: Exclude<Mode, "once">;
  plan: TriggerModePlan;
  resolved: ResolvedConfig;
  /** Reads the configuration again (the same file, flags and environment), for reloads. */
  reloadConfig?: () => Promise<ResolvedConfig["config"]>;
  /** Reload when the config file changes too (default true; SIGHUP always reloads). */
  watchConfig?: boolean;
  json: boolean;
  graceMs: number;
}

/** Run a long-running mode; resolves to 0, or throws what the exit code is mapped from. */
export async function runTriggered(options: TriggeredOptions): Promise<number> {
  const { resolved, plan } = options;
  const logger = stderrLogger();
  // The mode's triggers (the config's of its kind, plus the flag's) replace the config's own.
  const agent = createAgentFromConfig(
    resolved.config,
    agentOptions(resolved, logger, {
      requireModel: true,
      triggers: plan,
      // Nothing is served here, so nobody could answer a question at the desk: such calls are denied (docs/approvals.md).
      approvalDesk: false,
      reloadConfig: options.reloadConfig,
    }),
  );
  const triggers = agent.triggers!;
  const shutdown = shutdownSignals();
  // SIGHUP and changes of the config file reload what can change live (instructions, limits, scope, prices).
  const watcher = reloadOnChange({
    path: options.watchConfig !== false ? resolved.file : undefined,
    reload: () => agent.reload(),
    logger,
  });
  let lastFailure: unknown;
  triggers.on("run-end", ({ runId, triggerId, outcome, durationMs }) => {
    const line = formatRunLine(triggerId, runId, outcome, durationMs, options.json);
    if (line) process.stdout.write(scrubSecrets(options.json ? line : answerFor(process.stdout, line)));
    if (outcome.status === "failed")
      lastFailure = (outcome.data?.error as unknown) ?? new AgentdError("E_RUN_FAILED", outcome.message ?? "run failed");
  });
  logger.info("mode.start", { mode: options.mode, triggers: plan.specs.map((s) => s.id), cron: plan.cron });
  try {
    const starting = agent.start();
    starting.catch(() => {}); // a signal may win the race below; the rejection is handled there or moot
    const first = await Promise.race([starting, shutdown.received]);
    if (typeof first === "string") return await drain(first);
    if (first.active === 0) {
      const reason = triggers.status().find((s) => s.reason)?.reason ?? "no trigger is available";
      throw new AgentdError("E_CONFIG_INVALID", `--mode ${options.mode}: no trigger could start: ${reason}`);
    }
    const why = await Promise.race([shutdown.received, triggers.ended.then(() => undefined)]);
    if (why) return await drain(why);
    await agent.drain(options.graceMs, "every trigger ended");
    logger.info("mode.end", {
      mode: options.mode,
      reason: "every trigger ended",
      exitCode: lastFailure ? exitCodeFor(lastFailure) : undefined,
    });
    if (lastFailure !== undefined) throw lastFailure;
    return EXIT.ok;
  } finally {
    watcher.close();
    shutdown.dispose();
    await agent.close();
  }

  async function drain(signal: NodeJS.Signals): Promise<never> {
    logger.warn("shutdown.draining", drainingRecord(signal, options.graceMs, agent.status().inFlight));
    await agent.drain(options.graceMs, signal);
    logger.info("shutdown.done", { signal });
    throw interruptedBy(signal);
  }
}
