/**
 * The door to the companion package: off without `OTEL_*` (nothing imported), one warning line naming the
 * package to install when the environment asks for telemetry and `@agentd/otel` is missing, and any other
 * failure of the import surfaces as it is.
 */
import { describe, expect, test } from "bun:test";
import { memoryLogger } from "../log.ts";
import { loadTelemetry, loadTelemetryWith, MISSING_OTEL_MESSAGE } from "./load-telemetry.ts";

const ON = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" };

/** What Node and Bun throw for a package that is not installed. */
function notInstalled(name: string): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from /app/node_modules/@agentd/sdk/dist/index.js`), {
    code: "ERR_MODULE_NOT_FOUND",
  });
}

const unreachable = async () => ({
  createOtelTelemetry: (): never => {
    throw new Error("unreachable");
  },
});

describe("loadTelemetry", () => {
  test("without OTEL_* nothing is imported", async () => {
    let imported = false;
    const t = await loadTelemetryWith(() => ((imported = true), unreachable()), { env: {} });
    expect(t).toBeUndefined();
    expect(imported).toBe(false);
  });

  test("OTEL_* set and @agentd/otel missing: the run goes on untraced, one warning says what to install", async () => {
    const logger = memoryLogger();
    const t = await loadTelemetryWith(() => Promise.reject(notInstalled("@agentd/otel")), { env: ON, logger });
    expect(t).toBeUndefined();
    const warnings = logger.records.filter((r) => r.level === "warn");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toBe(MISSING_OTEL_MESSAGE);
    expect(MISSING_OTEL_MESSAGE).toContain("npm install @agentd/otel");
    expect(MISSING_OTEL_MESSAGE).not.toContain("\n");
  });

  test("a dependency of the companion that is missing is not mistaken for the companion itself", async () => {
    const e = notInstalled("@opentelemetry/sdk-trace");
    await expect(loadTelemetryWith(() => Promise.reject(e), { env: ON })).rejects.toBe(e);
  });

  test("with the companion installed (the workspace), OTEL_* gives a working backend", async () => {
    const off = await loadTelemetry({ env: { ...ON, OTEL_METRICS_EXPORTER: "none", OTEL_TRACES_EXPORTER: "none" } });
    expect(off).toBeUndefined();
    const on = await loadTelemetry({ env: { ...ON, OTEL_METRICS_EXPORTER: "none" } });
    expect(on).toBeDefined();
    expect(typeof on!.run).toBe("function");
    await on!.shutdown();
  });
});
