/**
 * What the connections and the tool set read of a run in flight, found by its id: who answers its
 * questions and where its sampling is billed. The runs themselves (agent/run/) are built after the
 * connections; they are handed this view of the one table, never a table of their own keyed by run id.
 */
import type { AuthorizationAsk } from "../../mcp/client/authorization-ask.ts";
import type { OperatorAsk } from "../../mcp/client/elicitation-policies.ts";
import type { SamplingShare } from "../sampling/sampling-ledger.ts";

/** A run in flight as the connections see it. */
export interface InFlightRun {
  /** Who answers its MCP servers' elicitations under the `operator` policy (an A2A task's operator). */
  readonly askOperator?: OperatorAsk;
  /** Who completes a server's authorization it lacks (an A2A task's client). */
  readonly askAuthorization?: AuthorizationAsk;
  /** Its share of sampling. */
  readonly sampling?: SamplingShare;
}

/** The runs in flight by id (the agent's `Runs`). */
export interface InFlightRuns {
  get(runId: string): InFlightRun | undefined;
}
