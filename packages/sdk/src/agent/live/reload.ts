/**
 * Reloading an agent's configuration while it runs (`agent.reload()`, the operator's `agentd/reload`):
 * the configuration is read and validated again; what can change live — instructions, run limits (budgets),
 * prices, scope, triggers — is applied to the runs that start from then on, served prompts and the roots
 * told to MCP servers are replaced at once (their sessions notified); what cannot (the model, MCP servers,
 * serving, the other capabilities, switching prompts or roots on or off …) is reported as needing a restart. An invalid configuration is refused
 * with its one-line error and the running one is kept.
 */
import type { AgentdConfig } from "../../config/types.generated.ts";
import type { AgentTriggerOptions } from "./configured-triggers.ts";

export type { LiveSettings, ReloadPlan, ReloadReport } from "../types/live-settings.ts";
import type { LiveSettings, ReloadPlan } from "../types/live-settings.ts";

/**
 * The top-level keys a reload applies live (`model` only for its `prices`; `capabilities` only for its
 * `roots`, and `prompts` and roots only while they stay on: switching them on or off changes what was declared).
 */
const LIVE_KEYS = new Set(["instructions", "limits", "scope", "triggers"]);

/**
 * A reload source over a configuration loader (the CLI's: the config file read again with the same flags
 * and environment). `live` turns a configuration into live settings.
 */
export function configReloadSource(
  initial: AgentdConfig,
  load: () => Promise<AgentdConfig>,
  live: (config: AgentdConfig) => LiveSettings,
  /** Live keys this agent does not take from the file (e.g. `triggers` given by a command line's mode): a change needs a restart. */
  fixed: ReadonlySet<string> = new Set(),
): () => Promise<ReloadPlan> {
  let current = initial;
  return async () => {
    const next = await load();
    const keys = new Set([...Object.keys(current), ...Object.keys(next)]);
    const restartRequired = [...keys].filter((k) => {
      if (LIVE_KEYS.has(k) && !fixed.has(k)) return false;
      const a = (current as Record<string, unknown>)[k];
      const b = (next as Record<string, unknown>)[k];
      if (k === "model") return !same(withoutPrices(a), withoutPrices(b));
      if (k === "prompts") return (a === undefined) !== (b === undefined);
      if (k === "capabilities") return !same(withoutRoots(a), withoutRoots(b)) || rootsOn(a) !== rootsOn(b);
      return !same(a, b);
    });
    current = next;
    return { live: live(next), restartRequired, config: next };
  };
}

/** Which trigger ids were added, removed or changed between two spec lists. */
export function triggerDiff(
  before: AgentTriggerOptions | undefined,
  after: AgentTriggerOptions | undefined,
): { added: string[]; removed: string[]; changed: string[] } {
  const a = new Map((before?.specs ?? []).map((s) => [s.id, s]));
  const b = new Map((after?.specs ?? []).map((s) => [s.id, s]));
  return {
    added: [...b.keys()].filter((id) => !a.has(id)),
    removed: [...a.keys()].filter((id) => !b.has(id)),
    changed: [...b.keys()].filter((id) => a.has(id) && !same(a.get(id), b.get(id))),
  };
}

/** Structural equality of JSON-like values (key order ignored). */
export function same(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v as object)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "undefined";
}

function withoutPrices(m: unknown): unknown {
  if (!m || typeof m !== "object") return m;
  const { prices: _p, ...rest } = m as Record<string, unknown>;
  return rest;
}

function withoutRoots(c: unknown): unknown {
  if (!c || typeof c !== "object") return c;
  const { roots: _r, ...rest } = c as Record<string, unknown>;
  return rest;
}

/** Whether a `capabilities` block declares roots (a non-empty list). */
function rootsOn(c: unknown): boolean {
  const roots = c && typeof c === "object" ? (c as Record<string, unknown>).roots : undefined;
  return Array.isArray(roots) && roots.length > 0;
}
