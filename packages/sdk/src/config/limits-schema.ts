/**
 * A run's bounds in `agentd.json`: `limits` (turns, tokens, cost, deadline, MCP request timeouts) and
 * `scope` (which tools the model may see).
 */
import * as v from "valibot";
import { duration, nonNegative, positiveInt } from "./schema-values.ts";

/** The budgets of one run: turns, tokens, cost, a deadline, and the MCP request timeouts. */
export const LimitsSchema = v.strictObject({
  maxTurns: v.optional(positiveInt),
  maxTokens: v.optional(positiveInt),
  deadline: v.optional(duration),
  maxCostUsd: v.optional(nonNegative),
  /** Every MCP server's request timeout without a response or progress, unless its entry sets `timeout` (default 60s). */
  mcpTimeout: v.optional(duration),
  /** Every MCP server's ceiling on one request, progress or not, unless its entry sets `maxTotalTimeout` (default 1h). */
  mcpMaxTotalTimeout: v.optional(duration),
});

/** Which of a server's tools the model may see (`allow`: names or `*` globs). */
export const ScopeSchema = v.strictObject({ allow: v.optional(v.array(v.string())) });
