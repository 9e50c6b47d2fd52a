/// <reference lib="dom" />
/**
 * What the console's pages draw a run with: its usage, cost and trigger, the link to its detail, and the table of runs.
 */
import { card, h, status, table, text, when } from "./dom.ts";

const USAGE_KEYS: [string, string][] = [
  ["inputTokens", "input"],
  ["outputTokens", "output"],
  ["cacheReadTokens", "cache read"],
  ["cacheWriteTokens", "cache write"],
  ["reasoningTokens", "reasoning"],
  ["totalTokens", "total"],
];

/** A usage record as a one-row table (input, output, cache read/write, reasoning, total, and any other kind). */
export function usageTable(usage: Record<string, unknown> | undefined, label: string): HTMLElement {
  const u = usage ?? {};
  const extra = Object.keys(u).filter((k) => !USAGE_KEYS.some(([key]) => key === k));
  return table(
    [...USAGE_KEYS.map(([, name]) => name), ...extra],
    [[...USAGE_KEYS.map(([k]) => text(u[k] ?? 0)), ...extra.map((k) => text(u[k]))]],
    "no usage",
    label,
  );
}

/** A run's link to its detail page. */
export const runHref = (principal: string, runId: string) => `#/run/${encodeURIComponent(principal)}/${encodeURIComponent(runId)}`;

/** The trigger a run came from, as text (the record's `trigger` field, whatever its shape), or "". */
export function triggerOf(run: any): string {
  const t = run.trigger;
  if (t === undefined || t === null) return "";
  if (typeof t === "string") return t;
  return String(t.id ?? t.kind ?? JSON.stringify(t));
}

/** US dollars: cents, or four decimals under a cent. */
export const money = (usd: number) => `$${usd !== 0 && Math.abs(usd) < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;

/** What a run or a sum cost, or the label saying only tokens are known. */
export const costText = (usd: number | undefined, running = false) =>
  usd !== undefined ? money(usd) : running ? "when it ends" : "tokens only (no price)";

/** The spend of `runs` with a price, how many had none; undefined when none had one. */
export function sumCost(runs: any[]): { usd: number; unpriced: number } | undefined {
  const priced = runs.filter((r) => typeof r.costUsd === "number");
  if (priced.length === 0) return undefined;
  return { usd: priced.reduce((n, r) => n + r.costUsd, 0), unpriced: runs.filter((r) => r.status !== "running").length - priced.length };
}

/**
 * A spend card: dollars (and how many runs had no price); before the first priced run, what is configured —
 * prices (`model.prices`) and no priced run yet, or none at all (tokens only).
 */
export function spend(label: string, cost: { usd: number; unpriced: number } | undefined, id: string, priced: boolean): HTMLElement {
  if (cost)
    return card(
      label,
      h(
        "span",
        { id },
        money(cost.usd),
        cost.unpriced > 0 ? h("span", { class: "muted" }, ` (${cost.unpriced} runs without a price)`) : null,
      ),
    );
  return card(
    label,
    priced
      ? h("span", { id, class: "muted", title: "model.prices is configured: a run's cost counts once it ends" }, "no priced run yet")
      : h("span", { id, class: "muted", title: "set model.prices to count spend in money" }, "tokens only (no model prices)"),
  );
}

export function sumUsage(runs: any[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of runs) for (const [k, v] of Object.entries(r.usage ?? {})) if (typeof v === "number") out[k] = (out[k] ?? 0) + v;
  return out;
}

/** A table of runs (newest first), each linking to its detail. */
export function runTable(runs: any[], empty: string): HTMLElement {
  return table(
    ["started", "status", "run", "principal", "trigger", "instruction", "turns", "tools", "tokens", "cost"],
    runs.map((r) => [
      when(r.startedAt),
      status(r.status),
      h("a", { href: runHref(r.principal, r.runId) }, r.runId),
      r.principal,
      triggerOf(r) || "—",
      h("span", { class: "clip", title: r.instruction }, r.instruction),
      r.turns,
      r.toolCalls,
      text(r.usage?.totalTokens ?? 0),
      h("span", { class: r.costUsd === undefined ? "muted" : "" }, costText(r.costUsd, r.status === "running")),
    ]),
    empty,
    "Runs",
  );
}
