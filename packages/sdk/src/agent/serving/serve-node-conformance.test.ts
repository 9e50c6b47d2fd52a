/**
 * The official `@modelcontextprotocol/conformance` server scenarios against an agent served over HTTP by the
 * SDK under Node (its node:http adapter): the fixture is bundled for Node as `scripts/build-packages.ts`
 * bundles the SDK and run by `node`; the conformance CLI runs under Bun (it needs `fs.globSync`, missing
 * from Node 20). The same protocol-level scenarios as `agentd serve --http` passes under Bun
 * (e2e/serve-conformance.e2e.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runServerScenario, SERVER_SCENARIOS, verdicts } from "@agentd/test-support/conformance-server";

const NODE = Bun.which("node");
let dir = "";
let server: ReturnType<typeof Bun.spawn<"pipe", "pipe", "pipe">> | undefined;
let url: URL;
let runtime = "";

describe.skipIf(!NODE)("conformance server scenarios against an agent served by Node", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentd-node-conformance-"));
    const built = await Bun.build({
      entrypoints: [join(import.meta.dir, "..", "__fixtures__", "node-agent-serve.ts")],
      outdir: join(dir, "build"),
      target: "node",
      format: "esm",
      // As scripts/build-packages.ts bundles the SDK: the OpenTelemetry companion stays an import the SDK
      // makes only when OTEL_* asks for it (its dist/ need not be built for this test).
      external: ["@agentd/otel"],
    });
    if (!built.success) throw new AggregateError(built.logs, "bundling the Node fixture failed");
    server = Bun.spawn([NODE!, built.outputs[0]!.path], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const reader = server.stdout.getReader();
    let line = "";
    while (!line.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the Node server did not start: ${await new Response(server.stderr).text()}`);
      line += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    const started = JSON.parse(line) as { url: string; runtime: string };
    url = new URL(started.url);
    runtime = started.runtime;
  }, 60_000);
  afterAll(async () => {
    if (server) {
      try {
        server.stdin.end();
      } catch {}
      const timer = setTimeout(() => server?.kill("SIGKILL"), 5000);
      await server.exited;
      clearTimeout(timer);
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  const runScenario = (scenario: string) => runServerScenario(url, scenario, dir);

  test("the agent is served by node, on loopback, at /mcp", () => {
    expect(runtime).toBe("node");
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.pathname).toBe("/mcp");
  });

  for (const scenario of SERVER_SCENARIOS)
    test(`${scenario}: every check passes`, async () => {
      const { code, checks, output } = await runScenario(scenario);
      const graded = checks.filter((c) => c.status !== "INFO");
      expect(graded.length).toBeGreaterThan(0);
      expect(verdicts(checks)).toEqual(graded.map((c) => `${c.id}: SUCCESS`));
      expect(code, output).toBe(0);
    }, 120_000);

  test("server-sse-polling: the priming event and the retry field pass under Node too", async () => {
    const { checks } = await runScenario("server-sse-polling");
    const byId = Object.fromEntries(checks.filter((c) => c.status !== "INFO").map((c) => [c.id, c.status]));
    expect(byId["server-sse-priming-event"]).toBe("SUCCESS");
    expect(byId["server-sse-retry-field"]).toBe("SUCCESS");
  }, 120_000);
});
