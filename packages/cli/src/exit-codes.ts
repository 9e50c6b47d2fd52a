/**
 * The documented exit codes (docs/run-output.md, "Exit codes"). One mapping from typed errors to codes, used by every
 * command, so a CronJob or a supervisor can tell failures apart.
 */
import { AgentdError, runStatusOf } from "@agentd/sdk";

/** Exit codes. */
export const EXIT = {
  /** The run succeeded (also: the work was already done). */
  ok: 0,
  /**
   * The run failed (`E_RUN_FAILED`): the provider's content filter withheld the answer, the final answer
   * was empty, a structured answer never validated, or the model gave up (`GIVE_UP: …`, the `give_up` action).
   */
  runFailed: 1,
  /** Usage or configuration error (also: the store's directory is held by another store). */
  usage: 2,
  /** A budget was exceeded (turns, tokens, deadline, cost). */
  budget: 3,
  /** Upstream unavailable: the model endpoint or a required MCP server. */
  upstream: 4,
  /** The model endpoint refused the credential (HTTP 401 or 403): a new API key is needed, not a retry. */
  unauthorized: 5,
  /** Interrupted by SIGINT, after draining. */
  sigint: 130,
  /** Interrupted by SIGTERM, after draining. */
  sigterm: 143,
} as const;

/** The exit code for an error thrown by a command: from the run status it means (the SDK's one table). */
export function exitCodeFor(error: unknown): number {
  switch (runStatusOf(error)) {
    case "invalid":
      return EXIT.usage;
    case "budget_exceeded":
      return EXIT.budget;
    case "upstream_unavailable":
      return EXIT.upstream;
    case "unauthorized":
      return EXIT.unauthorized;
    case "cancelled": {
      const signal = AgentdError.isInstance(error) ? error.options.data?.signal : undefined;
      return signal === "SIGINT" ? EXIT.sigint : signal === "SIGTERM" ? EXIT.sigterm : EXIT.runFailed;
    }
    default:
      return EXIT.runFailed;
  }
}
