/**
 * Zero cost when off: the CLI's default path never loads OpenTelemetry (checked in a real process with
 * a preload that reports every `@opentelemetry/` module loaded), and it does once `OTEL_*` names an
 * endpoint — the positive control that shows the check can fail.
 */
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../../../..");
const PRELOAD = resolve(import.meta.dir, "__fixtures__/report-otel-imports.ts");
const CLI = resolve(ROOT, "packages/cli/src/main.ts");

async function demo(extraEnv: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const proc = Bun.spawn([process.execPath, "--preload", PRELOAD, CLI, "demo"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", AGENT_LOG_FORMAT: "json", ...extraEnv },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited, new Response(proc.stdout).text()]);
  return { code, stderr };
}

describe("OpenTelemetry is imported lazily", () => {
  test("`agentd demo` without OTEL_* loads no @opentelemetry module", async () => {
    const run = await demo({});
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("otel-import");
  }, 60_000);

  test("with OTEL_EXPORTER_OTLP_ENDPOINT set, the same path loads it", async () => {
    // Nothing listens on this port: export fails quietly (reported as otel.* warnings), the run does not.
    const run = await demo({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_EXPORTER_OTLP_TIMEOUT: "1000" });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("otel-import");
  }, 60_000);
});
