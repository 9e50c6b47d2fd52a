/**
 * Budgets: the hard limits of one run (turns, tokens, cost; the wall-clock deadline lives in
 * `run-signal.ts` because it must interrupt work in flight). The budget is fixed when the run starts;
 * nothing a model or a tool says can raise it.
 */
import { AgentdError, type LocalErrorCode } from "../wire/errors.ts";
import { addUsage, emptyUsage, USAGE_DETAIL_KEYS, type Usage } from "../model/language-model.ts";

/** The limits of a run. Absent means unlimited, except `maxTurns` (default 20). */
export interface RunLimits {
  /** Model requests in the run, re-asks included. Default 20. */
  maxTurns?: number;
  /** Input + output tokens summed over the run, tool-reported (subagent) usage included. */
  maxTokens?: number;
  /** Wall-clock time for the whole run, in milliseconds. */
  deadlineMs?: number;
  /** Spend in US dollars; needs `prices`. */
  maxCostUsd?: number;
  /** Per tool call; a call that takes longer is cancelled and reported to the model as a tool error. */
  toolTimeoutMs?: number;
}

/**
 * Token prices used for the cost budget, in US dollars per million tokens. The optional ones bill the
 * parts of the usage split at their own rate; absent, those tokens cost the plain input/output price.
 */
export interface ModelPrices {
  inputPerMTokUsd: number;
  outputPerMTokUsd: number;
  /** Input tokens read from the prompt cache (typically a tenth of the input price). */
  cacheReadPerMTokUsd?: number;
  /** Input tokens written to the prompt cache (Anthropic: 1.25× input for 5 minutes, 2× for an hour). */
  cacheWritePerMTokUsd?: number;
  /** Output tokens spent on reasoning. */
  reasoningPerMTokUsd?: number;
}

/** The cost of `usage` at `prices`, in US dollars. */
export function costOf(usage: Usage, prices: ModelPrices): number {
  const read = Math.min(usage.cacheReadTokens ?? 0, usage.inputTokens);
  const write = Math.min(usage.cacheWriteTokens ?? 0, usage.inputTokens - read);
  const reasoning = Math.min(usage.reasoningTokens ?? 0, usage.outputTokens);
  const perM =
    (usage.inputTokens - read - write) * prices.inputPerMTokUsd +
    read * (prices.cacheReadPerMTokUsd ?? prices.inputPerMTokUsd) +
    write * (prices.cacheWritePerMTokUsd ?? prices.inputPerMTokUsd) +
    (usage.outputTokens - reasoning) * prices.outputPerMTokUsd +
    reasoning * (prices.reasoningPerMTokUsd ?? prices.outputPerMTokUsd);
  return perM / 1e6;
}

/** Why a run stopped. */
export type StopReason = "final" | "waiting" | "max-turns" | "max-tokens" | "deadline" | "max-cost" | "aborted" | "failed";

/** A budget that tripped: the error code, the stop reason and a one-line message. */
export interface Trip {
  code: LocalErrorCode;
  stopReason: StopReason;
  message: string;
}

/** A budget crossing its warning threshold (once per kind a run). */
export interface BudgetWarning {
  kind: "turns" | "tokens" | "cost" | "deadline";
  used: number;
  limit: number;
}

/** Fraction of a limit at which a warning is emitted. */
export const WARN_AT = 0.8;
/** Default `maxTurns`. */
export const DEFAULT_MAX_TURNS = 20;

const count = (n: unknown): number => (typeof n === "number" && Number.isFinite(n) && n > 0 ? n : 0);
const positive = (v: unknown) => v === undefined || (typeof v === "number" && v > 0 && Number.isFinite(v));

/** Check limits and prices; a mistake is a one-line `E_CONFIG_INVALID`. */
export function checkLimits(limits: RunLimits = {}, prices?: ModelPrices): void {
  const bad = (m: string) => new AgentdError("E_CONFIG_INVALID", m);
  for (const k of ["maxTurns", "maxTokens", "deadlineMs", "maxCostUsd", "toolTimeoutMs"] as const)
    if (!positive(limits[k])) throw bad(`limits.${k} must be a positive number, got ${JSON.stringify(limits[k])}`);
  if (limits.maxTurns !== undefined && !Number.isInteger(limits.maxTurns))
    throw bad(`limits.maxTurns must be a whole number, got ${limits.maxTurns}`);
  if (limits.maxCostUsd !== undefined && !prices)
    throw bad("limits.maxCostUsd needs model prices (inputPerMTokUsd, outputPerMTokUsd) to measure cost");
  if (prices && !(prices.inputPerMTokUsd >= 0 && prices.outputPerMTokUsd >= 0))
    throw bad("prices.inputPerMTokUsd and prices.outputPerMTokUsd must be numbers >= 0");
  for (const k of ["cacheReadPerMTokUsd", "cacheWritePerMTokUsd", "reasoningPerMTokUsd"] as const) {
    const price = prices?.[k];
    if (price !== undefined && !(typeof price === "number" && price >= 0))
      throw bad(`prices.${k} must be a number >= 0, got ${JSON.stringify(price)}`);
  }
}

/** Turn, token and cost accounting for one run. */
export class Budget {
  usage: Usage = emptyUsage();
  turns = 0;
  readonly maxTurns: number;
  private readonly warned = new Set<BudgetWarning["kind"]>();

  constructor(
    private readonly limits: RunLimits,
    private readonly prices: ModelPrices | undefined,
    private readonly onWarning: (w: BudgetWarning) => void,
  ) {
    this.maxTurns = limits.maxTurns ?? DEFAULT_MAX_TURNS;
  }

  /** Tokens counted against `maxTokens`. */
  get tokens(): number {
    return this.usage.inputTokens + this.usage.outputTokens;
  }

  /** Spend so far (0 without prices). */
  get costUsd(): number {
    return this.prices ? costOf(this.usage, this.prices) : 0;
  }

  /** Count one model request; trips when the run has already used all its turns. */
  startTurn(): Trip | undefined {
    const trip = this.turnsExhausted();
    if (trip) return trip;
    this.turns++;
    this.warn("turns", this.turns, this.maxTurns);
    return undefined;
  }

  /** The turn trip when no model request is left (checked before running tools nobody could read). */
  turnsExhausted(): Trip | undefined {
    if (this.turns < this.maxTurns) return undefined;
    return {
      code: "E_BUDGET_TURNS",
      stopReason: "max-turns",
      message: `turn budget exhausted: ${this.maxTurns} model turns used without a final answer`,
    };
  }

  /** Add usage (a model response, or a tool's own) and check the token and cost budgets. */
  add(usage: Usage | undefined): Trip | undefined {
    // A sloppy adapter or ToolSet must not turn the counters into NaN and disable the budget.
    if (usage) {
      const clean: Usage = {
        inputTokens: count(usage.inputTokens),
        outputTokens: count(usage.outputTokens),
        totalTokens: count(usage.totalTokens),
      };
      for (const k of USAGE_DETAIL_KEYS) if (usage[k] !== undefined) clean[k] = count(usage[k]);
      this.usage = addUsage(this.usage, clean);
    }
    const { maxTokens, maxCostUsd } = this.limits;
    if (maxTokens !== undefined) {
      if (this.tokens > maxTokens)
        return {
          code: "E_BUDGET_TOKENS",
          stopReason: "max-tokens",
          message: `token budget exceeded: ${this.tokens} > ${maxTokens} tokens`,
        };
      this.warn("tokens", this.tokens, maxTokens);
    }
    if (maxCostUsd !== undefined) {
      const cost = this.costUsd;
      if (cost > maxCostUsd)
        return { code: "E_BUDGET_COST", stopReason: "max-cost", message: `cost budget exceeded: $${cost.toFixed(4)} > $${maxCostUsd}` };
      this.warn("cost", cost, maxCostUsd);
    }
    return undefined;
  }

  /** Warn once when elapsed time passes the threshold of the deadline. */
  checkTime(elapsedMs: number): void {
    if (this.limits.deadlineMs !== undefined) this.warn("deadline", Math.round(elapsedMs), this.limits.deadlineMs);
  }

  private warn(kind: BudgetWarning["kind"], used: number, limit: number): void {
    if (used < limit * WARN_AT || this.warned.has(kind)) return;
    this.warned.add(kind);
    this.onWarning({ kind, used, limit });
  }
}
