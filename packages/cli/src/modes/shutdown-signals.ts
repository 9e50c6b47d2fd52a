/**
 * SIGTERM/SIGINT for the execution modes and `agentd serve`: the first signal starts the drain (stop taking triggers, let
 * in-flight runs finish for the grace period, then cancel them); a second one exits at once with
 * 130/143. The exit code of a drained shutdown is the first signal's (130 SIGINT, 143 SIGTERM).
 */
import { AgentdError } from "@agentd/sdk";
import { EXIT } from "../exit-codes.ts";

/** The exit code for a shutdown signal. */
export const exitCodeForSignal = (signal: NodeJS.Signals): number => (signal === "SIGINT" ? EXIT.sigint : EXIT.sigterm);

/**
 * The error a drained shutdown ends with: citty drops a subcommand's return value, so 130/143 travel as
 * this typed error (`exitCodeFor` maps it by `data.signal`).
 */
export const interruptedBy = (signal: NodeJS.Signals): AgentdError =>
  new AgentdError("E_ABORTED", `interrupted by ${signal} after draining`, { data: { signal } });

/** A pending shutdown. */
export interface ShutdownSignals {
  /** Resolves with the first SIGINT/SIGTERM. */
  readonly received: Promise<NodeJS.Signals>;
  /** The first signal, once received. */
  signal(): NodeJS.Signals | undefined;
  /** Stop listening (restores the default behaviour). */
  dispose(): void;
}

/** Listen for SIGINT/SIGTERM; see the module header. */
export function shutdownSignals(): ShutdownSignals {
  let first: NodeJS.Signals | undefined;
  let resolve: (signal: NodeJS.Signals) => void = () => {};
  const received = new Promise<NodeJS.Signals>((r) => (resolve = r));
  const handler = (signal: NodeJS.Signals) => {
    if (first) {
      process.stderr.write(`agentd: ${signal} again: exiting without waiting for in-flight runs\n`);
      process.exit(exitCodeForSignal(signal));
    }
    first = signal;
    resolve(signal);
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return {
    received,
    signal: () => first,
    dispose: () => {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
    },
  };
}
