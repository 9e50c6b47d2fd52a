/**
 * Run one official conformance client scenario (`@modelcontextprotocol/conformance`, under Bun, its test
 * servers bound to loopback by `bind-loopback.ts`) against a driver script; returns the harness's exit code,
 * output and checks. The caller removes `dir` afterwards.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const HARNESS = Bun.resolveSync("@modelcontextprotocol/conformance/dist/index.js", import.meta.dir);
const PRELOAD = fileURLToPath(new URL("../../../transport/http-client/__fixtures__/bind-loopback.ts", import.meta.url));

/** One check of a scenario's `checks.json`. */
export interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  description?: string;
  errorMessage?: string;
}

/** What a run produced. */
export interface ScenarioRun {
  code: number;
  output: string;
  checks: Check[];
  dir: string;
}

/** Run `scenario` with `bun <driver>` as the client command. */
export async function runClientScenario(scenario: string, driver: string): Promise<ScenarioRun> {
  const dir = mkdtempSync(join(tmpdir(), "agentd-conformance-"));
  const command = `${process.execPath} ${driver}`;
  const proc = Bun.spawn(
    [
      process.execPath,
      "--preload",
      PRELOAD,
      HARNESS,
      "client",
      "--command",
      command,
      "--scenario",
      scenario,
      "-o",
      dir,
      "--timeout",
      "60000",
    ],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } },
  );
  const timer = setTimeout(() => proc.kill("SIGKILL"), 100_000);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const name = scenario.replace(/\//g, "-");
    const runDir = readdirSync(dir, { recursive: true, encoding: "utf8" }).find((d) => d.endsWith("checks.json"));
    const checks = runDir ? (JSON.parse(readFileSync(join(dir, runDir), "utf8")) as Check[]) : [];
    return { code, output: `${name}\n${stdout}\n${stderr}`, checks, dir };
  } finally {
    clearTimeout(timer);
    proc.kill("SIGKILL");
    await proc.exited;
  }
}
