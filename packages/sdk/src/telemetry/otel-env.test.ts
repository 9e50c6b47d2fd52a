import { describe, expect, test } from "bun:test";
import { otelSignalsFromEnv } from "./otel-env.ts";

describe("otelSignalsFromEnv", () => {
  test("off unless an OTLP endpoint is named", () => {
    expect(otelSignalsFromEnv({})).toBeUndefined();
    expect(otelSignalsFromEnv({ OTEL_SERVICE_NAME: "x", OTEL_TRACES_EXPORTER: "otlp" })).toBeUndefined();
    expect(otelSignalsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " })).toBeUndefined();
  });
  test("the shared endpoint turns both signals on", () => {
    expect(otelSignalsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toMatchObject({ traces: true, metrics: true });
  });
  test("a per-signal endpoint turns on that signal only", () => {
    expect(otelSignalsFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" })).toMatchObject({
      traces: true,
      metrics: false,
    });
    expect(otelSignalsFromEnv({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://c:4318/v1/metrics" })).toMatchObject({
      traces: false,
      metrics: true,
    });
  });
  test("an exporter of none, or OTEL_SDK_DISABLED, turns signals off", () => {
    const e = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
    expect(otelSignalsFromEnv({ ...e, OTEL_METRICS_EXPORTER: "none" })).toMatchObject({ traces: true, metrics: false });
    expect(otelSignalsFromEnv({ ...e, OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" })).toBeUndefined();
    expect(otelSignalsFromEnv({ ...e, OTEL_SDK_DISABLED: "TRUE" })).toBeUndefined();
    expect(otelSignalsFromEnv({ ...e, OTEL_TRACES_EXPORTER: "console,otlp" })).toMatchObject({ traces: true, metrics: true });
  });
});

describe("OTEL_EXPORTER_OTLP_PROTOCOL", () => {
  const e = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" };
  test("http/protobuf by default; http/json when asked, the per-signal variable winning", () => {
    expect(otelSignalsFromEnv(e)).toEqual({
      traces: true,
      metrics: true,
      tracesProtocol: "http/protobuf",
      metricsProtocol: "http/protobuf",
    });
    expect(otelSignalsFromEnv({ ...e, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toMatchObject({
      tracesProtocol: "http/json",
      metricsProtocol: "http/json",
    });
    expect(
      otelSignalsFromEnv({ ...e, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/protobuf" }),
    ).toMatchObject({
      tracesProtocol: "http/json",
      metricsProtocol: "http/protobuf",
    });
    expect(otelSignalsFromEnv({ ...e, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "HTTP/JSON" })).toMatchObject({
      tracesProtocol: "http/json",
      metricsProtocol: "http/protobuf",
    });
  });
  test("grpc is refused in one line naming the variable; an unknown value too", () => {
    expect(() => otelSignalsFromEnv({ ...e, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(
      "OTEL_EXPORTER_OTLP_PROTOCOL=grpc: agentd exports OTLP over HTTP only",
    );
    expect(() => otelSignalsFromEnv({ ...e, OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "grpc" })).toThrow(
      "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=grpc",
    );
    expect(() => otelSignalsFromEnv({ ...e, OTEL_EXPORTER_OTLP_PROTOCOL: "thrift" })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL: expected http/protobuf or http/json, got "thrift"',
    );
    // A signal that is off never reads its protocol.
    expect(
      otelSignalsFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces", OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "grpc" }),
    ).toEqual({ traces: true, metrics: false, tracesProtocol: "http/protobuf" });
  });
});
