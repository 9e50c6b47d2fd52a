/**
 * A small SVG chart writer, by hand: a line chart for growth curves (log-scaled sizes, series for agentd,
 * peers and floors) and a horizontal bar chart for a side-by-side comparison. Plain SVG 1.1 with inline
 * attributes only (no CSS, scripts or fonts to fetch), so GitHub's image renderer and browsers show it alike.
 */
import type { Role } from "./growth.ts";

const W = 720;
const FONT = 'font-family="Helvetica, Arial, sans-serif"';
const COLORS: Record<Role, string[]> = {
  ours: ["#1f6feb", "#0b3d91"],
  peer: ["#d1242f", "#bf8700", "#8250df", "#1a7f37"],
  floor: ["#6e7781", "#424a53"],
};

/** Escape text for SVG content and attributes. */
export function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A readable number for ticks: 1,000 → 1k, 0.0012 → 0.0012. */
export function tick(n: number): string {
  const a = Math.abs(n);
  if (a >= 1e6) return `${+(n / 1e6).toPrecision(3)}M`;
  if (a >= 1e3) return `${+(n / 1e3).toPrecision(3)}k`;
  return `${+n.toPrecision(3)}`;
}

/** About five round tick values from 0 (or `lo`) to at least `hi`. */
function niceTicks(lo: number, hi: number): number[] {
  const span = hi - lo || Math.abs(hi) || 1;
  const raw = span / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const out: number[] = [];
  for (let v = Math.floor(lo / step) * step; v <= hi + step * 0.999; v += step) out.push(+v.toPrecision(10));
  return out;
}

/** Color of the i-th series of a role. */
const colorOf = (role: Role, i: number) => COLORS[role][i % COLORS[role].length] as string;

/** Everything a line chart needs. */
export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Array<{ name: string; role: Role; points: Array<{ x: number; y: number }> }>;
}

function frame(height: number, title: string, body: string[], width = W): string {
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${FONT} font-size="12">`,
    `<title>${esc(title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${esc(truncate(title, 100))}</text>`,
    ...body,
    `</svg>`,
    "",
  ].join("\n");
}

/**
 * A line chart on linear axes from 0, so a straight line reads as linear growth and a flat one as constant
 * (the table beside it gives the small sizes that crowd the left edge).
 */
export function lineChart(c: LineChart): string {
  const left = 80;
  const right = 30;
  const top = 40;
  const bottom = 60;
  const ph = 300;
  // The legend goes under the plot, one series a row, so long names are never clipped.
  const H = top + ph + bottom + c.series.length * 18 + 8;
  const pw = W - left - right;
  const xs = c.series.flatMap((s) => s.points.map((p) => p.x)).filter((x) => x > 0);
  const ys = c.series.flatMap((s) => s.points.map((p) => p.y)).filter((y) => Number.isFinite(y));
  const xTicks = niceTicks(0, Math.max(...xs, 1));
  const xMax = xTicks[xTicks.length - 1] as number;
  const yTicks = niceTicks(0, Math.max(...ys, 0) || 1);
  const yMax = yTicks[yTicks.length - 1] as number;
  const sx = (x: number) => left + (x / xMax) * pw;
  const sy = (y: number) => top + ph - (y / (yMax || 1)) * ph;
  const body: string[] = [`<g stroke="#d0d7de" stroke-width="1">`];
  for (const t of yTicks) body.push(`<line x1="${left}" y1="${sy(t).toFixed(1)}" x2="${left + pw}" y2="${sy(t).toFixed(1)}"/>`);
  body.push(
    `</g>`,
    `<g stroke="#24292f" stroke-width="1"><line x1="${left}" y1="${top + ph}" x2="${left + pw}" y2="${top + ph}"/><line x1="${left}" y1="${top}" x2="${left}" y2="${top + ph}"/></g>`,
  );
  body.push(`<g text-anchor="end" fill="#24292f">`);
  for (const t of yTicks) body.push(`<text x="${left - 6}" y="${(sy(t) + 4).toFixed(1)}">${tick(t)}</text>`);
  body.push(`</g>`, `<g text-anchor="middle" fill="#24292f">`);
  for (const t of xTicks) body.push(`<text x="${sx(t).toFixed(1)}" y="${top + ph + 18}">${tick(t)}</text>`);
  body.push(`</g>`);
  body.push(`<text class="axis-label x" x="${left + pw / 2}" y="${top + ph + 40}" text-anchor="middle">${esc(c.xLabel)}</text>`);
  body.push(
    `<text class="axis-label y" x="18" y="${top + ph / 2}" text-anchor="middle" transform="rotate(-90 18 ${top + ph / 2})">${esc(c.yLabel)}</text>`,
  );
  const counters: Record<Role, number> = { ours: 0, peer: 0, floor: 0 };
  c.series.forEach((s, i) => {
    const color = colorOf(s.role, counters[s.role]++);
    const dash = s.role === "floor" ? ' stroke-dasharray="6 4"' : "";
    const pts = s.points.filter((p) => p.x > 0 && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
    body.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2"${dash} points="${pts.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" ")}"/>`,
    );
    for (const p of pts) body.push(`<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="3" fill="${color}"/>`);
    const ly = top + ph + bottom + 4 + i * 18;
    body.push(`<line x1="${left}" y1="${ly}" x2="${left + 24}" y2="${ly}" stroke="${color}" stroke-width="2"${dash}/>`);
    body.push(`<text x="${left + 30}" y="${ly + 4}">${esc(truncate(s.name, 90))}</text>`);
  });
  return frame(H, c.title, body);
}

/** Everything a bar chart needs: one bar per subject. */
export interface BarChart {
  title: string;
  /** The value axis' label with its unit, e.g. "requests/s (higher is better)". */
  valueLabel: string;
  bars: Array<{ name: string; role: Role; value: number }>;
}

/** A horizontal bar chart, one bar per subject, the value printed at its end. */
export function barChart(c: BarChart): string {
  const rowH = 26;
  const width = 860;
  const left = 410;
  const right = 70;
  const top = 40;
  const pw = width - left - right;
  const ph = c.bars.length * rowH;
  const H = top + ph + 60;
  const ticks = niceTicks(0, Math.max(...c.bars.map((b) => b.value), 0) || 1);
  const vMax = ticks[ticks.length - 1] as number;
  const sx = (v: number) => left + (v / (vMax || 1)) * pw;
  const body: string[] = [`<g stroke="#d0d7de" stroke-width="1">`];
  for (const t of ticks) body.push(`<line x1="${sx(t).toFixed(1)}" y1="${top}" x2="${sx(t).toFixed(1)}" y2="${top + ph}"/>`);
  body.push(`</g>`, `<g text-anchor="middle" fill="#24292f">`);
  for (const t of ticks) body.push(`<text x="${sx(t).toFixed(1)}" y="${top + ph + 16}">${tick(t)}</text>`);
  body.push(`</g>`);
  const counters: Record<Role, number> = { ours: 0, peer: 0, floor: 0 };
  c.bars.forEach((b, i) => {
    const y = top + i * rowH + 4;
    const color = colorOf(b.role, counters[b.role]++);
    body.push(`<text x="${left - 8}" y="${y + 13}" text-anchor="end" font-size="11">${esc(truncate(b.name, 60))}</text>`);
    body.push(
      `<rect x="${left}" y="${y}" width="${Math.max(1, sx(b.value) - left).toFixed(1)}" height="${rowH - 8}" fill="${color}"${b.role === "floor" ? ' fill-opacity="0.45"' : ""}/>`,
    );
    body.push(`<text x="${(sx(b.value) + 4).toFixed(1)}" y="${y + 13}">${tick(b.value)}</text>`);
  });
  body.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${top + ph}" stroke="#24292f"/>`);
  body.push(`<text class="axis-label x" x="${left + pw / 2}" y="${H - 14}" text-anchor="middle">${esc(c.valueLabel)}</text>`);
  body.push(
    `<text class="axis-label y" x="12" y="${top + ph / 2}" text-anchor="middle" transform="rotate(-90 12 ${top + ph / 2})">subject</text>`,
  );
  return frame(H, c.title, body, width);
}

const truncate = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
