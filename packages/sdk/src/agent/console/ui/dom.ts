/// <reference lib="dom" />
/**
 * The console's DOM helpers: elements built with text only (never HTML from data, so nothing a run or a
 * server says can become markup), a key/value list for any record, a table, and formatting.
 */

type Child = Node | string | number | null | undefined | false;

/** An element with attributes (strings; `on…` keys take listeners) and children (text or nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | ((e: Event) => void) | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === "number" ? String(c) : c);
  return el;
}

/** A value as text: strings as they are, the rest as compact JSON. */
export function text(v: unknown): string {
  if (v === undefined || v === null) return "—";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** A status word, coloured by its meaning. */
export function status(v: unknown): HTMLElement {
  const s = text(v);
  return h("span", { class: `status status-${s.replace(/[^a-z-]/gi, "")}` }, s);
}

/** Every field of a record as keys and values, nested records as JSON (the fields a page does not know). */
export function kv(record: Record<string, unknown>, skip: readonly string[] = []): HTMLElement {
  const dl = h("dl", { class: "kv" });
  for (const [k, v] of Object.entries(record)) {
    if (skip.includes(k) || v === undefined) continue;
    dl.append(h("dt", {}, k), h("dd", {}, typeof v === "object" && v !== null ? h("pre", {}, JSON.stringify(v, null, 2)) : text(v)));
  }
  return dl;
}

/** A table of rows, each cell a node or text; `empty` when there is none. */
export function table(head: string[], rows: Child[][], empty: string, label: string): HTMLElement {
  if (rows.length === 0) return h("p", { class: "empty" }, empty);
  return h(
    "div",
    { class: "table-wrap", role: "region", "aria-label": label, tabindex: "0" },
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, c))))),
    ),
  );
}

/** A labelled figure. */
export function card(label: string, value: Child): HTMLElement {
  return h("div", { class: "card" }, h("div", { class: "label" }, label), h("div", { class: "value" }, value));
}

/** A duration in words: 3 d 4 h, 5 min 2 s, 800 ms. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** An ISO time in the reader's local form (the ISO text when it is not a time). */
export function when(iso: unknown): string {
  if (typeof iso !== "string") return "—";
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toLocaleString();
}
