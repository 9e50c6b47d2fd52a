/// <reference lib="dom" />
/**
 * The Overview's charts, as small inline SVG (no library): runs per hour by outcome over the last 24 hours,
 * run duration p50/p95, tokens and spend per day over the last 7 days, tool calls by server with their error
 * rate. Each bar is a link to the Runs page filtered to the runs it counts (`#/runs/hour=…&status=…`), and
 * carries its count as text (a `<title>` and `data-count`), so a reader without the picture has the figure.
 */
import { duration, h } from "./dom.ts";

const SVG = "http://www.w3.org/2000/svg";
const HOUR = 3_600_000;

/** An SVG element with attributes and children (text nodes only). */
function s(tag: string, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

/** A link around a bar: its runs on the Runs page. */
const link = (filter: Record<string, string>, title: string, data: Record<string, string | number>, shape: SVGElement) =>
  s("a", { href: `#/runs/${new URLSearchParams(filter)}`, ...data }, s("title", {}, title), shape);

/** The day of a time as YYYY-MM-DD in the reader's zone. */
export const dayOf = (t: number): string => new Date(t).toLocaleDateString("sv");

/** The runs one hour holds, by outcome. */
function runsPerHour(runs: any[], now: number): SVGElement {
  const first = Math.floor(now / HOUR) * HOUR - 23 * HOUR;
  const outcomes = ["succeeded", "failed", "running"] as const;
  const hours = Array.from({ length: 24 }, (_, i) => ({ at: first + i * HOUR, n: { succeeded: 0, failed: 0, running: 0 } }));
  for (const r of runs) {
    const i = Math.floor((Date.parse(r.startedAt) - first) / HOUR);
    if (i >= 0 && i < 24 && r.status in hours[i]!.n) hours[i]!.n[r.status as (typeof outcomes)[number]]++;
  }
  const top = Math.max(1, ...hours.map((x) => x.n.succeeded + x.n.failed + x.n.running));
  const svg = s("svg", { viewBox: "0 0 480 110", class: "chart", role: "group", "aria-label": "Runs per hour by outcome, last 24 hours" });
  hours.forEach((x, i) => {
    let y = 100;
    for (const o of outcomes) {
      const n = x.n[o];
      if (n === 0) continue;
      const hgt = (n / top) * 96;
      y -= hgt;
      const hour = new Date(x.at).toISOString();
      svg.append(
        link(
          { hour, status: o },
          `${n} ${o}, ${new Date(x.at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`,
          { "data-chart": "hour", "data-outcome": o, "data-count": n },
          s("rect", { x: i * 20 + 2, y: y.toFixed(1), width: 16, height: Math.max(1, hgt).toFixed(1), class: `fill-${o}` }),
        ),
      );
    }
  });
  svg.append(s("line", { x1: 0, y1: 100.5, x2: 480, y2: 100.5, class: "axis" }));
  return svg;
}

/** A percentile of sorted numbers (nearest rank). */
export const percentile = (sorted: number[], p: number): number => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** Run duration p50 and p95 of the finished runs, each a bar linking to the runs that took at least as long. */
function durations(runs: any[]): HTMLElement {
  const ms = runs
    .filter((r) => r.endedAt)
    .map((r) => Date.parse(r.endedAt) - Date.parse(r.startedAt))
    .sort((a, b) => a - b);
  if (ms.length === 0) return h("p", { class: "empty" }, "no finished run yet");
  const p50 = percentile(ms, 50);
  const p95 = percentile(ms, 95);
  const max = Math.max(1, ms.at(-1)!);
  const svg = s("svg", { viewBox: "0 0 480 56", class: "chart", role: "group", "aria-label": "Run duration p50 and p95" });
  [
    ["p50", p50],
    ["p95", p95],
  ].forEach(([label, v], i) => {
    const w = Math.max(2, ((v as number) / max) * 380);
    svg.append(
      s("text", { x: 0, y: i * 26 + 17, class: "label" }, String(label)),
      link(
        { minMs: String(v) },
        `${label} ${duration(v as number)}`,
        { "data-chart": "duration", "data-p": String(label), "data-ms": v as number },
        s("rect", { x: 40, y: i * 26 + 4, width: w.toFixed(1), height: 18, class: "fill-bar" }),
      ),
      s("text", { x: Math.min(44 + w, 420), y: i * 26 + 17, class: "label" }, duration(v as number)),
    );
  });
  return h("div", {}, svg, h("p", { class: "muted" }, `over ${ms.length} finished run${ms.length === 1 ? "" : "s"}`));
}

/** Tokens (bars) and spend (text) per day, last 7 days. */
function perDay(runs: any[], now: number): SVGElement {
  const days = Array.from({ length: 7 }, (_, i) => ({ day: dayOf(now - (6 - i) * 24 * HOUR), tokens: 0, usd: 0, runs: 0 }));
  for (const r of runs) {
    const d = days.find((x) => x.day === dayOf(Date.parse(r.startedAt)));
    if (!d) continue;
    d.runs++;
    d.tokens += r.usage?.totalTokens ?? 0;
    d.usd += typeof r.costUsd === "number" ? r.costUsd : 0;
  }
  const top = Math.max(1, ...days.map((d) => d.tokens));
  const svg = s("svg", { viewBox: "0 0 480 130", class: "chart", role: "group", "aria-label": "Tokens and spend per day, last 7 days" });
  days.forEach((d, i) => {
    const hgt = (d.tokens / top) * 80;
    const usd = d.usd ? `$${d.usd < 0.01 ? d.usd.toFixed(4) : d.usd.toFixed(2)}` : "";
    svg.append(
      link(
        { day: d.day },
        `${d.day}: ${d.tokens} tokens${usd ? `, ${usd}` : ""}, ${d.runs} runs`,
        { "data-chart": "day", "data-day": d.day, "data-count": d.runs, "data-tokens": d.tokens },
        s("rect", {
          x: i * 68 + 4,
          y: (96 - Math.max(1, hgt)).toFixed(1),
          width: 60,
          height: Math.max(1, hgt).toFixed(1),
          class: "fill-bar",
        }),
      ),
      s("text", { x: i * 68 + 4, y: 110, class: "label" }, d.day.slice(5)),
      s("text", { x: i * 68 + 4, y: 124, class: "label" }, usd || `${d.tokens}`),
    );
  });
  return svg;
}

/** Tool calls by server: calls as bars, the failed part in red, the rate in words. */
function byServer(servers: any[]): HTMLElement {
  if (!servers.length) return h("p", { class: "empty" }, "no tool call among the held runs");
  const top = Math.max(1, ...servers.map((x) => x.calls));
  const shown = servers.slice(0, 10);
  const svg = s("svg", {
    viewBox: `0 0 480 ${shown.length * 24 + 4}`,
    class: "chart",
    role: "group",
    "aria-label": "Tool calls by server",
  });
  shown.forEach((x, i) => {
    const w = (x.calls / top) * 240;
    const bad = (x.errors / top) * 240;
    const rate = x.calls ? Math.round((x.errors / x.calls) * 100) : 0;
    svg.append(
      s("text", { x: 0, y: i * 24 + 16, class: "label" }, x.server.slice(0, 18)),
      link(
        { server: x.server },
        `${x.server}: ${x.calls} calls, ${x.errors} failed (${rate}%)`,
        { "data-chart": "server", "data-server": x.server, "data-count": x.calls, "data-errors": x.errors },
        s(
          "g",
          {},
          s("rect", { x: 130, y: i * 24 + 4, width: Math.max(2, w).toFixed(1), height: 16, class: "fill-succeeded" }),
          s("rect", { x: 130, y: i * 24 + 4, width: bad.toFixed(1), height: 16, class: "fill-failed" }),
        ),
      ),
      s("text", { x: 136 + w, y: i * 24 + 16, class: "label" }, `${x.calls} · ${rate}% failed`),
    );
  });
  return h("div", {}, svg);
}

/** The Overview's charts from the snapshot. */
export function charts(snap: any): HTMLElement {
  const now = Date.now();
  const runs: any[] = snap.runs ?? [];
  const figure = (title: string, body: Node) => h("figure", { class: "chart-box" }, h("figcaption", {}, title), body);
  return h(
    "div",
    { class: "charts", id: "charts" },
    figure("Runs per hour (24 h)", runsPerHour(runs, now)),
    figure("Run duration", durations(runs)),
    figure("Tokens and spend per day", perDay(runs, now)),
    figure("Tool calls by server", byServer(snap.toolServers ?? [])),
  );
}

/** Whether a run passes the chart filters of a Runs link (`hour`, `day`, `server`, `minMs`). */
export function chartFilter(filters: Record<string, string>, snap: any): (r: any) => boolean {
  const hour = filters.hour ? Date.parse(filters.hour) : undefined;
  const server = filters.server ? new Set<string>(snap.toolServers?.find((x: any) => x.server === filters.server)?.runs ?? []) : undefined;
  const minMs = filters.minMs ? Number(filters.minMs) : undefined;
  return (r) => {
    const t = Date.parse(r.startedAt);
    if (hour !== undefined && !(t >= hour && t < hour + HOUR)) return false;
    if (filters.day && dayOf(t) !== filters.day) return false;
    if (server && !server.has(`${r.principal}\n${r.runId}`)) return false;
    if (minMs !== undefined && !(r.endedAt && Date.parse(r.endedAt) - t >= minMs)) return false;
    // A run's page links to the runs of its conversation the same way.
    if (filters.conversation && r.conversationId !== filters.conversation) return false;
    return true;
  };
}
