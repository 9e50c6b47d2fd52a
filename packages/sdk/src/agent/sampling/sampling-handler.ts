/**
 * Servicing a server's `sampling/createMessage` with agentd's own model: admit it against that server's
 * budget, build the fenced model request, call the routed model, bill the usage (the server's budget, the
 * ledger: the run whose tool call caused it) and answer with a `CreateMessageResult`. One telemetry line per
 * request (`sampling.answered` or `sampling.rejected`); never the request's text.
 */
import type { Logger } from "../../log.ts";
import type { ModelPrices } from "../../loop/budget.ts";
import type { LanguageModel } from "../../model/language-model.ts";
import type { SamplingHandler } from "../../mcp/capabilities.ts";
import type { McpError } from "../../wire/errors.ts";
import { pickModel, type SamplingRoute } from "./model-routes.ts";
import { SamplingBudget, type SamplingLimits } from "./sampling-budget.ts";
import type { SamplingLedger } from "./sampling-ledger.ts";
import { toCreateMessageResult, toModelRequest } from "./sampling-messages.ts";

/** How one server's sampling requests are serviced. */
export interface SamplingPolicy {
  /** Declare `sampling.tools` and accept `tools` / `toolChoice` (tool-use sampling). */
  tools?: boolean;
  /** Per-server budget per window (absent: unlimited). */
  budget?: SamplingLimits;
  /** Models `modelPreferences` may pick (absent: always the agent's model). */
  routes?: SamplingRoute[];
}

/** What {@link samplingHandler} needs. */
export interface SamplingHandlerInit {
  server: string;
  model: LanguageModel;
  policy: SamplingPolicy;
  ledger: SamplingLedger;
  prices?: ModelPrices;
  logger: Logger;
}

/** The handler for one server (its budget lives as long as the handler). */
export function samplingHandler(init: SamplingHandlerInit): SamplingHandler {
  const { server, policy, ledger, logger } = init;
  const budget = new SamplingBudget(server, policy.budget ?? {}, init.prices);
  let contextNoted = false;
  return async (params, ctx) => {
    let maxTokens: number;
    try {
      maxTokens = budget.admit(params.maxTokens);
    } catch (e) {
      logger.warn("sampling.rejected", { server, reason: "budget", spent: budget.spent(), error: (e as McpError).message });
      throw e;
    }
    if (params.includeContext && params.includeContext !== "none" && !contextNoted) {
      contextNoted = true;
      logger.info("sampling.context_ignored", { server, includeContext: params.includeContext, answeredAs: "none" });
    }
    const model = pickModel(init.model, policy.routes ?? [], params.modelPreferences);
    const request = { ...toModelRequest(server, params, policy.tools === true), maxOutputTokens: maxTokens, signal: ctx.signal };
    const response = await model.generate(request);
    budget.record(response.usage);
    const runId = ledger.charge(server, response.usage);
    logger.info("sampling.answered", {
      server,
      model: model.modelId,
      runId: runId || undefined,
      usage: response.usage,
      finishReason: response.finishReason,
      tools: request.tools?.length ?? 0,
    });
    return toCreateMessageResult(response, model.modelId);
  };
}
