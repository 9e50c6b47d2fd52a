/**
 * The Prometheus text exposition format's rules, checked line by line (an independent check beside the
 * parser package): every sample's family has `# HELP` and `# TYPE` before it, names and label names are
 * valid, label values are quoted with only `\\`, `\"` and `\n` escapes, values are numbers, a histogram's
 * buckets are cumulative and end in `le="+Inf"` equal to its `_count`.
 */
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"(?:,(?=[a-zA-Z_]))?)*\})? (-?(?:\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\+Inf|-Inf|NaN))$/;

/** The problems of `text` (empty when it keeps every rule). */
export function expositionProblems(text: string): string[] {
  const problems: string[] = [];
  if (!text.endsWith("\n")) problems.push("the text does not end with a newline");
  const types = new Map<string, string>();
  const helped = new Set<string>();
  const buckets = new Map<string, { le: string; n: number }[]>();
  const counts = new Map<string, number>();
  for (const line of text.split("\n").filter(Boolean)) {
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      if (!NAME.test(meta[2]!)) problems.push(`bad metric name in: ${line}`);
      if (meta[1] === "HELP") helped.add(meta[2]!);
      else if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(meta[3]!)) problems.push(`bad type in: ${line}`);
      else types.set(meta[2]!, meta[3]!);
      continue;
    }
    if (line.startsWith("#")) continue;
    const m = SAMPLE.exec(line);
    if (!m) {
      problems.push(`not a sample line: ${line}`);
      continue;
    }
    const name = m[1]!;
    const base = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "");
    if (!types.has(base)) problems.push(`sample before its # TYPE: ${line}`);
    if (!helped.has(base)) problems.push(`sample without # HELP: ${line}`);
    if (types.get(base) === "histogram") {
      const labels = (m[2] ?? "").replace(/,?le="[^"]*"/, "").replace("{,", "{");
      const series = `${base}${labels}`;
      if (name.endsWith("_bucket")) {
        const le = /le="([^"]*)"/.exec(m[2] ?? "")?.[1];
        if (le === undefined) problems.push(`bucket without le: ${line}`);
        else (buckets.get(series) ?? buckets.set(series, []).get(series)!).push({ le, n: Number(m[3]) });
      }
      if (name.endsWith("_count")) counts.set(series, Number(m[3]));
    }
  }
  for (const [series, bs] of buckets) {
    for (let i = 1; i < bs.length; i++) if (bs[i]!.n < bs[i - 1]!.n) problems.push(`${series}: buckets not cumulative`);
    const last = bs[bs.length - 1]!;
    if (last.le !== "+Inf") problems.push(`${series}: last bucket is not le="+Inf"`);
    const seriesKey = series.replace("{}", "");
    const count = counts.get(series) ?? counts.get(seriesKey);
    if (count !== last.n) problems.push(`${series}: _count ${count} is not the +Inf bucket ${last.n}`);
  }
  return problems;
}
