import { describe, expect, test } from "bun:test";
import { otelSignalsFromEnv } from "./otel-env.ts";

describe("otelSignalsFromEnv", () => {
  test("off unless an OTLP endpoint is named", () => {
    expect(otelSignalsFromEnv({})).toBeUndefined();
    expect(otelSignalsFromEnv({ OTEL_SERVICE_NAME: "x", OTEL_TRACES_EXPORTER: "otlp" })).toBeUndefined();
    expect(otelSignalsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " })).toBeUndefined();
  });
  test("the shared endpoint turns both signals on", () => {
    expect(otelSignalsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toEqual({ traces: true, metrics: true });
  });
  test("a per-signal endpoint turns on that signal only", () => {
    expect(otelSignalsFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" })).toEqual({ traces: true, metrics: false });
    expect(otelSignalsFromEnv({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://c:4318/v1/metrics" })).toEqual({ traces: false, metrics: true });
  });
  test("an exporter of none, or OTEL_SDK_DISABLED, turns signals off", () => {
    const e = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
    expect(otelSignalsFromEnv({ ...e, OTEL_METRICS_EXPORTER: "none" })).toEqual({ traces: true, metrics: false });
    expect(otelSignalsFromEnv({ ...e, OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" })).toBeUndefined();
    expect(otelSignalsFromEnv({ ...e, OTEL_SDK_DISABLED: "TRUE" })).toBeUndefined();
    expect(otelSignalsFromEnv({ ...e, OTEL_TRACES_EXPORTER: "console,otlp" })).toEqual({ traces: true, metrics: true });
  });
});
