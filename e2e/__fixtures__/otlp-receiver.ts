/**
 * Test fixture: an OTLP/HTTP receiver on 127.0.0.1 (ephemeral port) that decodes what exporters send
 * (`/v1/traces`, `/v1/metrics`; protobuf, or OTLP/JSON, whose objects have the same shape) with the official OTLP proto definitions as compiled by the
 * OpenTelemetry JS project (`@opentelemetry/otlp-transformer` 0.208's generated protobufjs root), so a
 * test reads real payloads, not our own idea of them.
 */
// The generated module has no ESM entry of its own; it is CommonJS.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const root = require("@opentelemetry/otlp-transformer/build/src/generated/root.js") as any;
const TraceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const MetricsRequest = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
const TraceResponse = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
const MetricsResponse = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;

/** A span as received, ids in lower-case hex and attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  status: { code: number; message?: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

/** A metric as received: name and its data points' attributes. */
export interface ReceivedMetric {
  name: string;
  unit: string;
  points: Array<{ attributes: Record<string, unknown>; value: number }>;
}

/** An id as lower-case hex: OTLP/JSON writes ids as hex strings already, protobuf as bytes. */
const hex = (b: Uint8Array | string | undefined) => (typeof b === "string" ? b.toLowerCase() : Buffer.from(b ?? []).toString("hex"));

function attributeValue(v: any): unknown {
  if (!v) return undefined;
  if (v.stringValue != null) return v.stringValue;
  if (v.boolValue != null) return v.boolValue;
  if (v.intValue != null) return Number(v.intValue);
  if (v.doubleValue != null) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(attributeValue);
  return undefined;
}
const attrs = (kvs: any[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, attributeValue(kv.value)]));

/** The receiver a test holds. */
export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  /** Content types of the export requests, e.g. `application/x-protobuf`. */
  contentTypes: string[];
  /** Resolves once `ready()` holds after an export arrived (checked at once too). */
  until(ready: () => boolean): Promise<void>;
  close(): Promise<void>;
}

/** Start a receiver on 127.0.0.1. */
export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const contentTypes: string[] = [];
  const waiters = new Set<{ ready: () => boolean; resolve: () => void }>();
  const check = () => {
    for (const w of waiters) if (w.ready()) waiters.delete(w), w.resolve();
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const body = new Uint8Array(await req.arrayBuffer());
      const type = req.headers.get("content-type") ?? "";
      contentTypes.push(type);
      const json = type.startsWith("application/json");
      // OTLP/JSON answers in JSON, protobuf in protobuf (OTLP/HTTP spec, "OTLP/HTTP Response").
      const answer = (encoded: Uint8Array) =>
        json
          ? Response.json({})
          : new Response(encoded as Uint8Array<ArrayBuffer>, { headers: { "content-type": "application/x-protobuf" } });
      if (path === "/v1/traces") {
        const msg = json ? JSON.parse(new TextDecoder().decode(body)) : TraceRequest.decode(body);
        for (const rs of msg.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                traceId: hex(s.traceId),
                spanId: hex(s.spanId),
                parentSpanId: hex(s.parentSpanId),
                name: s.name,
                kind: s.kind,
                status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
                attributes: attrs(s.attributes),
                resource: attrs(rs.resource?.attributes),
              });
        check();
        return answer(TraceResponse.encode({}).finish());
      }
      if (path === "/v1/metrics") {
        const msg = json ? JSON.parse(new TextDecoder().decode(body)) : MetricsRequest.decode(body);
        for (const rm of msg.resourceMetrics ?? [])
          for (const sm of rm.scopeMetrics ?? [])
            for (const m of sm.metrics ?? []) {
              const data = m.sum ?? m.histogram ?? m.gauge;
              const points = (data?.dataPoints ?? []).map((p: any) => ({
                attributes: attrs(p.attributes),
                value: p.asDouble ?? (p.asInt != null ? Number(p.asInt) : (p.sum ?? Number(p.count ?? 0))),
              }));
              metrics.push({ name: m.name, unit: m.unit, points });
            }
        check();
        return answer(MetricsResponse.encode({}).finish());
      }
      return new Response("not found", { status: 404 });
    },
  });
  const until = (ready: () => boolean) => (ready() ? Promise.resolve() : new Promise<void>((resolve) => waiters.add({ ready, resolve })));
  return { url: `http://127.0.0.1:${server.port}`, spans, metrics, contentTypes, until, close: () => server.stop(true) };
}
