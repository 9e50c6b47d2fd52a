/**
 * Instruction templates: a tiny mustache-style renderer. `{{name}}` is replaced by a value taken from the
 * event; there is no code, no sections, no escaping and no re-evaluation (a value containing `{{` stays
 * literal). Which names exist depends on the trigger kind, and an unknown name is a configuration error
 * found by {@link validateTemplate} when the trigger is added, never when it fires.
 *
 * `{{resource.text}}` is a server's data placed inside the run's instruction, so it renders as an
 * untrusted-data fence (`<resource-text-ID uri="…" untrusted="true">…</resource-text-ID>`), like a tool's
 * result: the resource cannot end its fence and write instructions after it.
 */
import { fenceResourceText } from "../loop/fence.ts";
import { AgentdError } from "../wire/errors.ts";
import type { TriggerEvent, TriggerKind } from "./types.ts";

type Resolver = (event: TriggerEvent) => string;

const str = (v: unknown): string => (v === undefined || v === null ? "" : typeof v === "string" ? v : String(v));

const COMMON: Record<string, Resolver> = {
  "trigger.id": (e) => e.triggerId,
  "event.at": (e) => e.at.toISOString(),
  "event.kind": (e) => e.kind,
  "run.id": (e) => e.runId,
};
const TICK: Record<string, Resolver> = { tick: (e) => str(e.data.tick) };

/** The placeholders each kind offers (a table, so the set is visible in one place). */
const PLACEHOLDERS: Record<TriggerKind, Record<string, Resolver>> = {
  subscription: {
    ...COMMON,
    "resource.uri": (e) => str(e.data.uri),
    "resource.text": (e) => fenceResourceText(str(e.data.uri), str(e.data.text)),
    "resource.version": (e) => str(e.data.version),
  },
  cron: { ...COMMON, ...TICK },
  interval: { ...COMMON, ...TICK },
  manual: { ...COMMON },
};

// `{{ name }}`: letters, digits, `_` and dots, optional spaces inside the braces.
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g;

/** The placeholder names valid for `kind`. */
export const placeholdersFor = (kind: TriggerKind): string[] => Object.keys(PLACEHOLDERS[kind]);

/**
 * Check a template for `kind`. Throws `E_CONFIG_INVALID` naming the first unknown placeholder (and the
 * known ones), or a stray `{{` / `}}` that is not a placeholder.
 */
export function validateTemplate(template: string, kind: TriggerKind, triggerId?: string): void {
  const where = triggerId === undefined ? "instruction" : `trigger '${triggerId}': instruction`;
  for (const m of template.matchAll(PLACEHOLDER)) {
    const name = m[1] as string;
    if (!Object.hasOwn(PLACEHOLDERS[kind], name))
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `${where}: unknown placeholder {{${name}}} for a ${kind} trigger; known: ${placeholdersFor(kind)
          .map((n) => `{{${n}}}`)
          .join(", ")}`,
      );
  }
  const rest = template.replace(PLACEHOLDER, "");
  if (rest.includes("{{") || rest.includes("}}"))
    throw new AgentdError("E_CONFIG_INVALID", `${where}: malformed placeholder (write {{name}}, e.g. {{trigger.id}})`);
}

/** Render a template for an event. Call {@link validateTemplate} first; unknown names render as "". */
export function renderTemplate(template: string, event: TriggerEvent): string {
  const table = PLACEHOLDERS[event.kind];
  return template.replace(PLACEHOLDER, (_, name: string) => (Object.hasOwn(table, name) ? (table[name] as Resolver)(event) : ""));
}
