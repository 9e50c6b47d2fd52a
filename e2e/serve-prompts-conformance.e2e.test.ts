/**
 * The official `@modelcontextprotocol/conformance` server scenarios for prompts and completion against a
 * real `agentd serve --http 127.0.0.1:0` whose config serves prompts. `prompts-list` and
 * `completion-complete` are protocol scenarios (any prompts, any completion answer); the two fixture
 * scenarios `prompts-get-simple` and `prompts-get-with-args` call prompts by name, which a config can
 * define, so they run too. (`prompts-get-embedded-resource` and `prompts-get-with-image` need content a
 * configured text prompt does not carry.) Every check must be SUCCESS; assertions read checks.json.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CliWorkspace, REPO_ROOT } from "@agentd/test-support/cli-process";
import { childEnv, startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";
import { CONFORMANCE_PROMPTS } from "./__fixtures__/serve/served-prompts.ts";

const CONFORMANCE = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const SCENARIOS = ["prompts-list", "completion-complete", "prompts-get-simple", "prompts-get-with-args"];

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
  details?: Record<string, unknown>;
}

let ws: CliWorkspace;
let serve: ServeProcess;
let out = "";

beforeAll(async () => {
  ws = new CliWorkspace();
  out = mkdtempSync(join(tmpdir(), "agentd-prompts-conformance-"));
  const config = ws.writeConfig({ prompts: CONFORMANCE_PROMPTS });
  serve = await startServe(["--http", "127.0.0.1:0", "--config", config, "--grace", "1s"]);
}, 30_000);
afterAll(async () => {
  await stopAllServe();
  ws?.cleanup();
  if (out) rmSync(out, { recursive: true, force: true });
}, 30_000);

async function runScenario(scenario: string): Promise<{ code: number; checks: Check[]; output: string }> {
  const dir = join(out, scenario);
  const proc = Bun.spawn([process.execPath, CONFORMANCE, "server", "--url", serve.url.href, "--scenario", scenario, "-o", dir], {
    env: childEnv(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 90_000);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const runs = readdirSync(dir);
    expect(runs.length).toBe(1);
    const checks = JSON.parse(readFileSync(join(dir, runs[0]!, "checks.json"), "utf8")) as Check[];
    return { code, checks, output: stdout + stderr };
  } finally {
    clearTimeout(timer);
    if (proc.exitCode === null) proc.kill("SIGKILL");
  }
}

const verdicts = (checks: Check[]) =>
  checks.filter((c) => c.status !== "INFO").map((c) => `${c.id}: ${c.status}${c.errorMessage ? ` (${c.errorMessage})` : ""}`);

describe("conformance prompts and completion scenarios against agentd serve with configured prompts", () => {
  for (const scenario of SCENARIOS)
    test(`${scenario}: every check passes`, async () => {
      const { code, checks, output } = await runScenario(scenario);
      const graded = checks.filter((c) => c.status !== "INFO");
      expect(graded.length).toBeGreaterThan(0);
      expect(verdicts(checks)).toEqual(graded.map((c) => `${c.id}: SUCCESS`));
      expect(code, output).toBe(0);
      if (scenario === "completion-complete") {
        // The harness typed "test": the configured values that start with it, not every value.
        const result = checks.find((c) => c.id === "completion-complete")?.details?.result as { completion: { values: string[] } };
        expect(result.completion.values).toEqual(["testValue1", "Test-two"]);
      }
      if (scenario === "prompts-list") expect(checks[0]?.details?.prompts).toEqual(Object.keys(CONFORMANCE_PROMPTS));
    }, 120_000);

  test("the server stayed healthy: no error logged, no crash", async () => {
    expect(serve.events().filter((e) => e.level === "error")).toEqual([]);
    expect((await fetch(new URL("/healthz", serve.url))).status).toBe(200);
  });
});
