/**
 * The official MCP conformance suite's server scenarios, run against a URL: the scenarios agentd must pass
 * whichever runtime serves it, and one runner that returns the exit code and every check. Shared by the
 * CLI's `agentd serve` test and the SDK's test of an agent served by Node.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The conformance CLI's entry (it runs under Bun; Node 20 lacks `fs.globSync`). */
export const CONFORMANCE_CLI = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")),
  "dist",
  "index.js",
);

/** Scenarios whose every graded check must be SUCCESS. */
export const SERVER_SCENARIOS: readonly string[] = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "resources-list",
  "resources-subscribe",
  "resources-unsubscribe",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

/** One check of a scenario, as `checks.json` records it. */
export interface ConformanceCheck {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

/** Run one scenario against `url`, its results under `outDir/<scenario>`; killed after 90 s. */
export async function runServerScenario(
  url: URL,
  scenario: string,
  outDir: string,
  env?: Record<string, string | undefined>,
): Promise<{ code: number; checks: ConformanceCheck[]; output: string }> {
  const dir = join(outDir, scenario);
  const proc = Bun.spawn([process.execPath, CONFORMANCE_CLI, "server", "--url", url.href, "--scenario", scenario, "-o", dir], {
    env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 90_000);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const runs = readdirSync(dir);
    if (runs.length !== 1) throw new Error(`expected one run of ${scenario} under ${dir}, found ${runs.length}: ${stdout}${stderr}`);
    return {
      code,
      checks: JSON.parse(readFileSync(join(dir, runs[0]!, "checks.json"), "utf8")) as ConformanceCheck[],
      output: stdout + stderr,
    };
  } finally {
    clearTimeout(timer);
    if (proc.exitCode === null) proc.kill("SIGKILL");
  }
}

/** The graded checks as `id: STATUS (message)` lines, for an equality against all-SUCCESS. */
export const verdicts = (checks: ConformanceCheck[]): string[] =>
  checks.filter((c) => c.status !== "INFO").map((c) => `${c.id}: ${c.status}${c.errorMessage ? ` (${c.errorMessage})` : ""}`);
