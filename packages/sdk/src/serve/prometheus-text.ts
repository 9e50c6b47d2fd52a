/**
 * A small metric registry written out in the Prometheus text exposition format (version 0.0.4): counters,
 * gauges and histograms with labels, each family with its `# HELP` and `# TYPE` lines, label values
 * escaped (`\\`, `"`, newline), histograms as cumulative `_bucket{le="…"}` series ending in `le="+Inf"`,
 * then `_sum` and `_count`. Hand-written rather than the OpenTelemetry Prometheus exporter: the exposition
 * is a few rules, and agentd's counters must work without the (optional, heavy) OpenTelemetry SDK.
 */

/** Label names to values. */
export type Labels = Readonly<Record<string, string>>;

/** The exposition's content type (what Prometheus asks for with text/plain). */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  /** Series by their label key (the canonical label text). */
  series: Map<string, { labels: Labels; value: number; buckets?: number[]; sum?: number }>;
  bounds?: readonly number[];
  /** A gauge read at scrape time. */
  read?: () => readonly { labels: Labels; value: number }[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label value as the text format writes it inside quotes. */
export const escapeLabelValue = (v: string): string => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
const escapeHelp = (v: string): string => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (extra) pairs.push(extra);
  if (pairs.length === 0) return "";
  for (const [k] of pairs) if (!LABEL.test(k) || k.startsWith("__")) throw new Error(`invalid label name ${k}`);
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(",")}}`;
}

const numberText = (n: number): string => (Number.isNaN(n) ? "NaN" : n === Infinity ? "+Inf" : n === -Infinity ? "-Inf" : String(n));

/** The registry. Names must be valid metric names; a counter only goes up. */
export class MetricRegistry {
  private readonly families = new Map<string, Family>();

  private family(name: string, help: string, type: Family["type"], bounds?: readonly number[]): Family {
    if (!NAME.test(name)) throw new Error(`invalid metric name ${name}`);
    let f = this.families.get(name);
    if (!f) this.families.set(name, (f = { name, help, type, series: new Map(), bounds }));
    return f;
  }

  /** Declare a counter (so it is written, at 0, before its first increment when `labels` is given). */
  counter(name: string, help: string, initial: readonly Labels[] = []): { inc(labels?: Labels, by?: number): void } {
    const f = this.family(name, help, "counter");
    const inc = (labels: Labels = {}, by = 1) => {
      if (!(by >= 0)) return;
      const key = labelText(labels);
      const s = f.series.get(key);
      if (s) s.value += by;
      else f.series.set(key, { labels, value: by });
    };
    for (const l of initial) inc(l, 0);
    return { inc };
  }

  /** A gauge read when scraped. */
  gauge(name: string, help: string, read: () => readonly { labels: Labels; value: number }[]): void {
    this.family(name, help, "gauge").read = read;
  }

  /** A histogram with these upper bounds (ascending; `+Inf` is added). */
  histogram(name: string, help: string, bounds: readonly number[]): { observe(value: number, labels?: Labels): void } {
    const f = this.family(name, help, "histogram", bounds);
    return {
      observe(value, labels = {}) {
        if (!Number.isFinite(value)) return;
        const key = labelText(labels);
        let s = f.series.get(key);
        if (!s) f.series.set(key, (s = { labels, value: 0, buckets: bounds.map(() => 0), sum: 0 }));
        s.value++;
        s.sum! += value;
        bounds.forEach((b, i) => {
          if (value <= b) s!.buckets![i]!++;
        });
      },
    };
  }

  /** The exposition text of every family. */
  render(): string {
    const lines: string[] = [];
    for (const f of this.families.values()) {
      lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
      if (f.read) for (const s of f.read()) lines.push(`${f.name}${labelText(s.labels)} ${numberText(s.value)}`);
      for (const s of f.series.values()) {
        if (f.type !== "histogram") {
          lines.push(`${f.name}${labelText(s.labels)} ${numberText(s.value)}`);
          continue;
        }
        f.bounds!.forEach((b, i) => lines.push(`${f.name}_bucket${labelText(s.labels, ["le", numberText(b)])} ${s.buckets![i]}`));
        lines.push(`${f.name}_bucket${labelText(s.labels, ["le", "+Inf"])} ${s.value}`);
        lines.push(`${f.name}_sum${labelText(s.labels)} ${numberText(s.sum!)}`, `${f.name}_count${labelText(s.labels)} ${s.value}`);
      }
    }
    return `${lines.join("\n")}\n`;
  }
}
