/**
 * The official `@modelcontextprotocol/conformance` SERVER suite against a real `agentd serve --http
 * 127.0.0.1:0 --notifications` process: every protocol-level scenario for what agentd declares (tools,
 * resources with subscribe, logging under server notifications, Streamable HTTP). Scenarios that call fixture tools,
 * resources or prompts by name (`test_simple_text`, `test://static-text`, …) test a fixture server, not a
 * protocol feature, and are not run here. Assertions read each scenario's checks.json.
 *
 * The suite runs under Bun (it needs `fs.globSync`, missing from Node 20).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv, startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";
import { runServerScenario, SERVER_SCENARIOS, verdicts } from "@agentd/test-support/conformance-server";

let serve: ServeProcess;
let out = "";

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "agentd-conformance-"));
  serve = await startServe(["--http", "127.0.0.1:0", "--notifications", "--grace", "1s"]);
}, 30_000);
afterAll(async () => {
  await stopAllServe();
  if (out) rmSync(out, { recursive: true, force: true });
}, 30_000);

/** Run one scenario with the conformance CLI against the served agent. */
const runScenario = (scenario: string) => runServerScenario(serve.url, scenario, out, childEnv());

describe("conformance server suite against agentd serve --http", () => {
  test("agentd logged its URL for port 0: loopback, an ephemeral port, the /mcp endpoint", () => {
    expect(serve.url.hostname).toBe("127.0.0.1");
    expect(Number(serve.url.port)).toBeGreaterThan(0);
    expect(serve.url.pathname).toBe("/mcp");
  });

  for (const scenario of SERVER_SCENARIOS)
    test(`${scenario}: every check passes`, async () => {
      const { code, checks, output } = await runScenario(scenario);
      const graded = checks.filter((c) => c.status !== "INFO");
      expect(graded.length).toBeGreaterThan(0);
      expect(verdicts(checks)).toEqual(graded.map((c) => `${c.id}: SUCCESS`));
      expect(code, output).toBe(0);
    }, 120_000);

  test("server-sse-polling: priming event and retry field pass; resume-after-close needs the fixture tool", async () => {
    // The scenario calls the fixture tool `test_reconnection`, which closes its stream before answering.
    // agentd has no such tool, so the call is answered at once on its stream and the "resume after the
    // server closed the stream" check can only warn. The SSE mechanics it grades are checked here.
    const { code, checks } = await runScenario("server-sse-polling");
    const byId = Object.fromEntries(checks.filter((c) => c.status !== "INFO").map((c) => [c.id, c.status]));
    expect(byId).toEqual({
      "server-sse-priming-event": "SUCCESS",
      "server-sse-retry-field": "SUCCESS",
      "server-sse-disconnect-resume": "WARNING",
    });
    expect(code).toBe(0);
  }, 120_000);

  test("the server stayed healthy through the suite: no handler failure, no crash", async () => {
    const events = serve.events();
    expect(events.filter((e) => e.level === "error")).toEqual([]);
    expect(events.filter((e) => e.line !== undefined)).toEqual([]);
    const health = await fetch(new URL("/healthz", serve.url));
    expect(health.status).toBe(200);
  });
});
