/**
 * `capabilities.sampling` and each server's `sampling` (the config's shapes) as the agent's sampling
 * options: `true` is the default policy (no tools, no budget, the agent's model), an object sets tools,
 * budget and routes, and a server's own entry overrides the global one (`false` switches it off there).
 */
import type { AgentdConfig } from "../../config/types.generated.ts";
import type { LanguageModel } from "../../model/language-model.ts";
import type { SamplingPolicy } from "../sampling/sampling-handler.ts";

type SamplingConfig = NonNullable<NonNullable<AgentdConfig["capabilities"]>["sampling"]>;
/** One configured route, as the config writes it. */
export type SamplingRouteConfig = NonNullable<Exclude<SamplingConfig, boolean>["routes"]>[number];

/** The agent's `sampling` option for a config; undefined when no server may sample. */
export function samplingFromConfig(
  config: AgentdConfig,
  buildRoute: (route: SamplingRouteConfig) => LanguageModel,
): { all?: SamplingPolicy; servers?: Record<string, SamplingPolicy | false> } | undefined {
  const policyOf = (c: SamplingConfig | undefined): SamplingPolicy | false | undefined => {
    if (c === undefined) return undefined;
    if (c === false) return false;
    if (c === true) return {};
    const b = c.budget;
    return {
      tools: c.tools || undefined,
      budget: b
        ? { calls: b.calls, inputTokens: b.inputTokens, outputTokens: b.outputTokens, costUsd: b.costUsd, windowMs: b.window }
        : undefined,
      routes: c.routes?.length ? c.routes.map((r) => ({ model: buildRoute(r), match: r.match, ratings: r.ratings })) : undefined,
    };
  };
  const all = policyOf(config.capabilities?.sampling);
  const servers: Record<string, SamplingPolicy | false> = {};
  for (const [name, entry] of Object.entries(config.mcpServers ?? {})) {
    const own = policyOf(entry.sampling);
    if (own !== undefined) servers[name] = own;
  }
  if (!all && !Object.values(servers).some(Boolean)) return undefined;
  return { all: all || undefined, servers: Object.keys(servers).length ? servers : undefined };
}
