/**
 * Which model answers a sampling request: the server's `modelPreferences` mapped onto configured routes.
 *
 * 1. Hints, in the server's order: the first route whose model name or one of whose `match` names contains
 *    the hint (or is contained in it), case-insensitive — the spec reads a hint as a substring of a name.
 * 2. Otherwise the priorities: each route rates itself 0–1 for `cost` (cheapness), `speed` and
 *    `intelligence`; its score is the sum of priority × rating. The default model rates 0.5 on each, so a
 *    route wins only where it scores above the default (ties keep the default).
 * 3. Otherwise the default model (the agent's own).
 */
import type { LanguageModel } from "../../model/language-model.ts";
import type { ModelPreferences } from "../../wire/index.ts";

/** A model a sampling request may be routed to. */
export interface SamplingRoute {
  model: LanguageModel;
  /** Names this route answers for (besides its model's id). */
  match?: string[];
  /** How well it meets each priority, 0–1 (absent: 0.5). */
  ratings?: { cost?: number; speed?: number; intelligence?: number };
}

const NEUTRAL = 0.5;

const score = (p: ModelPreferences, r: SamplingRoute["ratings"] = {}): number =>
  (p.costPriority ?? 0) * (r.cost ?? NEUTRAL) +
  (p.speedPriority ?? 0) * (r.speed ?? NEUTRAL) +
  (p.intelligencePriority ?? 0) * (r.intelligence ?? NEUTRAL);

/** The model for a request with `preferences` (see the module header). */
export function pickModel(
  fallback: LanguageModel,
  routes: readonly SamplingRoute[],
  preferences: ModelPreferences | undefined,
): LanguageModel {
  if (!preferences || routes.length === 0) return fallback;
  for (const hint of preferences.hints ?? []) {
    const h = hint.name?.trim().toLowerCase();
    if (!h) continue;
    const names = (r: SamplingRoute) => [r.model.modelId, ...(r.match ?? [])].map((n) => n.toLowerCase());
    const route = routes.find((r) => names(r).some((n) => n.includes(h) || h.includes(n)));
    if (route) return route.model;
  }
  let best: SamplingRoute | undefined;
  let bestScore = score(preferences);
  for (const route of routes) {
    const s = score(preferences, route.ratings);
    if (s > bestScore) [best, bestScore] = [route, s];
  }
  return best?.model ?? fallback;
}
