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

/**
 * The record logged at once when the first signal arrives: what happens now and how to stop at once, so a
 * person at the terminal is not left waiting in silence (`hint` is the line they read).
 */
export function drainingRecord(signal: NodeJS.Signals, graceMs: number, inFlight: number): Record<string, unknown> {
  const again = signal === "SIGINT" ? "press Ctrl-C again" : `send ${signal} again`;
  const hint =
    inFlight > 0
      ? `finishing the current step (up to ${Math.round(graceMs / 1000)}s) — ${again} to stop now`
      : `stopping — ${again} to stop now`;
  return { signal, graceMs, inFlight, hint };
}

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
