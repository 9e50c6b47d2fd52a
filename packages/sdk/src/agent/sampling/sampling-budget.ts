/**
 * The per-server sampling budget: how many requests, input and output tokens and dollars one MCP server may
 * spend of our model per window. A request over budget is refused before the model is called, with the
 * error the sampling spec gives for a rejected request (code -1), so a server cannot run up the bill.
 */
import { costOf, type ModelPrices } from "../../loop/budget.ts";
import type { Usage } from "../../model/language-model.ts";
import { McpError } from "../../wire/errors.ts";

/** Limits per window; each absent limit is unlimited. */
export interface SamplingLimits {
  calls?: number;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  /** The window's length in ms (default: one hour). */
  windowMs?: number;
}

/** What one server spent in the current window. */
export interface SamplingSpend {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** The spec's code for a sampling request the user (here: the budget) rejected. */
export const USER_REJECTED = -1;

const DEFAULT_WINDOW_MS = 3_600_000;

/** One server's budget. `now` is injectable for tests of the window. */
export class SamplingBudget {
  private start: number;
  private spend: SamplingSpend = { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };

  constructor(
    readonly server: string,
    private readonly limits: SamplingLimits,
    private readonly prices: ModelPrices | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.start = now();
  }

  /** What was spent in the current window. */
  spent(): SamplingSpend {
    this.roll();
    return { ...this.spend };
  }

  /**
   * Admit one request: counts the call and returns how many output tokens it may ask for (the request's
   * `maxTokens` capped by what is left), or throws the user-rejected error naming the limit reached.
   */
  admit(maxTokens: number): number {
    this.roll();
    const l = this.limits;
    const s = this.spend;
    const over =
      l.calls !== undefined && s.calls >= l.calls
        ? `${l.calls} requests`
        : l.inputTokens !== undefined && s.inputTokens >= l.inputTokens
          ? `${l.inputTokens} input tokens`
          : l.outputTokens !== undefined && s.outputTokens >= l.outputTokens
            ? `${l.outputTokens} output tokens`
            : l.costUsd !== undefined && s.costUsd >= l.costUsd
              ? `$${l.costUsd}`
              : undefined;
    if (over) {
      const window = Math.round((l.windowMs ?? DEFAULT_WINDOW_MS) / 1000);
      throw new McpError(
        USER_REJECTED,
        `sampling request rejected: MCP server '${this.server}' used its sampling budget (${over} per ${window} s)`,
      );
    }
    s.calls++;
    return l.outputTokens === undefined ? maxTokens : Math.max(1, Math.min(maxTokens, l.outputTokens - s.outputTokens));
  }

  /** Record what an admitted request used. */
  record(usage: Usage): void {
    this.roll();
    this.spend.inputTokens += usage.inputTokens;
    this.spend.outputTokens += usage.outputTokens;
    if (this.prices) this.spend.costUsd += costOf(usage, this.prices);
  }

  private roll(): void {
    const now = this.now();
    if (now - this.start < (this.limits.windowMs ?? DEFAULT_WINDOW_MS)) return;
    this.start = now;
    this.spend = { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
  }
}
