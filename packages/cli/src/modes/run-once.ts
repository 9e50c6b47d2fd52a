/**
 * `agentd run --mode once` (the default): run the instruction, print the result on stdout, exit.
 *
 * The run id is `--run-id`, else `RUN_ID`, else fresh; it travels in `_meta` of every tool call, so a
 * CronJob retry is recognisable to the tools. A final answer of exactly `ALREADY_DONE` means the work was
 * done before: exit 0 with nothing on stdout (`--json` prints `{"runId","status":"already-done",…}`).
 *
 * SIGTERM/SIGINT: the run may finish within the grace period (its result is printed); then it is
 * cancelled (`notifications/cancelled` to the servers, the model request aborted). Either way the exit
 * code is 143/130 (thrown as `E_ABORTED` with the signal).
 */
import { AgentdError, createAgentFromConfig, isAlreadyDone, newRunId, scrubSecrets, type ResolvedConfig } from "@agentd/sdk";
import { agentOptions } from "../agent-options.ts";
import { EXIT } from "../exit-codes.ts";
import { stderrLogger } from "../telemetry.ts";
import { formatResult } from "./format-result.ts";
import { interruptedBy, shutdownSignals } from "./shutdown-signals.ts";

/** What a once run needs. */
export interface OnceOptions {
  resolved: ResolvedConfig;
  instruction: string;
  json: boolean;
  runId?: string;
  outputSchema?: Record<string, unknown>;
  graceMs: number;
}

/** Run once; resolves to 0, or throws (the CLI maps the error to the exit code; see exit-codes.ts). */
export async function runOnce(options: OnceOptions): Promise<number> {
  const { resolved } = options;
  const logger = stderrLogger();
  const agent = createAgentFromConfig(resolved.config, agentOptions(resolved, logger, { requireModel: true }));
  const runId = options.runId ?? resolved.runId ?? newRunId();
  const shutdown = shutdownSignals();
  let drained: Promise<void> | undefined;
  void shutdown.received.then((signal) => {
    logger.info("shutdown.draining", { signal, graceMs: options.graceMs, inFlight: agent.status().inFlight });
    // The run may finish within the grace (its result is printed); then the agent cancels it.
    drained = agent.drain(options.graceMs, signal);
  });
  const started = performance.now();
  try {
    const result = await agent.run(options.instruction, {
      runId,
      trigger: "once",
      ...(options.outputSchema ? { outputSchema: options.outputSchema } : {}),
    });
    const durationMs = performance.now() - started;
    if (isAlreadyDone(result)) {
      logger.info("run.already-done", { runId, durationMs: Math.round(durationMs) });
      if (options.json) process.stdout.write(`${JSON.stringify({ runId, status: "already-done", usage: result.usage, durationMs: Math.round(durationMs) })}\n`);
    } else process.stdout.write(scrubSecrets(formatResult(result, options.json, durationMs)));
    const signal = shutdown.signal();
    if (signal) throw interruptedBy(signal);
    return EXIT.ok;
  } catch (e) {
    const signal = shutdown.signal();
    if (signal && AgentdError.isInstance(e) && e.code === "E_ABORTED") throw interruptedBy(signal);
    throw e;
  } finally {
    shutdown.dispose();
    await drained;
    await agent.close();
  }
}
