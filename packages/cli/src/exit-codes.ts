/**
 * The documented exit codes (README "Exit codes"). One mapping from typed errors to codes, used by every
 * command, so a CronJob or a supervisor can tell failures apart.
 */
import { AgentdError } from "@agentd/sdk";

/** Exit codes. */
export const EXIT = {
  /** The run succeeded (also: the work was already done). */
  ok: 0,
  /** The run failed: the model gave up, or a tool failure it could not get past. */
  runFailed: 1,
  /** Usage or configuration error (also: the store's directory is held by another store). */
  usage: 2,
  /** A budget was exceeded (turns, tokens, deadline, cost). */
  budget: 3,
  /** Upstream unavailable: the model endpoint or a required MCP server. */
  upstream: 4,
  /** Interrupted by SIGINT, after draining. */
  sigint: 130,
  /** Interrupted by SIGTERM, after draining. */
  sigterm: 143,
} as const;

/** The exit code for an error thrown by a command. */
export function exitCodeFor(error: unknown): number {
  if (!AgentdError.isInstance(error)) return EXIT.runFailed;
  switch (error.code) {
    case "E_CONFIG_INVALID":
    case "E_USAGE":
    case "E_STORE_LOCKED":
      return EXIT.usage;
    case "E_BUDGET_TURNS":
    case "E_BUDGET_TOKENS":
    case "E_BUDGET_DEADLINE":
    case "E_BUDGET_COST":
      return EXIT.budget;
    case "E_UPSTREAM":
    case "E_TRANSPORT":
    case "E_CONNECTION_CLOSED":
    case "E_SESSION_EXPIRED":
    case "E_UNAUTHORIZED":
    case "E_PROTOCOL_VERSION":
    case "E_TIMEOUT":
      return EXIT.upstream;
    case "E_ABORTED": {
      const signal = error.options.data?.signal;
      return signal === "SIGINT" ? EXIT.sigint : signal === "SIGTERM" ? EXIT.sigterm : EXIT.runFailed;
    }
    default:
      return EXIT.runFailed;
  }
}
