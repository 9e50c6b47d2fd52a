/**
 * The conformance fixture against the official `@modelcontextprotocol/conformance` server suite, served by
 * the SDK's Streamable HTTP server on 127.0.0.1, plus an in-memory check of the fixture's surface.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { McpClient } from "@agentd/sdk/mcp";
import { createStreamableHttpServer, type StreamableHttpServer } from "@agentd/sdk/transport";
import { CONFORMANCE_FIXTURES, createConformanceFixtureServer } from "./conformance-fixture.ts";

const CLI = Bun.resolveSync("@modelcontextprotocol/conformance/dist/index.js", import.meta.dir);

/** No expected failures: every scenario must pass. */
const TRANSPORT_POLICY_FAILURES = new Set<string>();

let http: StreamableHttpServer | undefined;
let client: McpClient | undefined;
let outDir: string | undefined;
afterEach(async () => {
  await client?.close();
  await http?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
  http = client = outDir = undefined;
});

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

test("exactly the fixtures the scenarios call, with completion, logging and subscriptions declared", async () => {
  const fixture = createConformanceFixtureServer();
  client = await fixture.connectInMemory({ capabilities: { prompts: true, completion: true } });
  expect(client.serverCapabilities).toMatchObject({ completions: {}, logging: {}, resources: { subscribe: true }, prompts: {}, tools: {} });
  expect((await client.listTools()).map((t) => t.name).sort()).toEqual([...CONFORMANCE_FIXTURES.tools].sort());
  expect((await client.listPrompts()).map((p) => p.name).sort()).toEqual([...CONFORMANCE_FIXTURES.prompts].sort());
  const uris = [...(await client.listResources()).map((r) => r.uri), ...(await client.listResourceTemplates()).map((t) => t.uriTemplate)];
  expect(uris.sort()).toEqual([...CONFORMANCE_FIXTURES.resources].sort());
  expect((await client.readResource("test://template/123/data")).contents[0]).toEqual({
    uri: "test://template/123/data",
    mimeType: "application/json",
    text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
  });
  // A client without sampling gets a tool-domain error, not a hang.
  expect((await client.callTool("test_sampling", { prompt: "hi" })).isError).toBe(true);
});

test("the official conformance server suite (--suite all) passes against the fixture over Streamable HTTP", async () => {
  const fixture = createConformanceFixtureServer();
  http = await createStreamableHttpServer({ onsession: (t) => void fixture.connect(t) });
  outDir = mkdtempSync(join(tmpdir(), "agentd-conformance-"));
  // Asynchronous spawn: the server under test runs in this process and must keep answering.
  const proc = Bun.spawn([process.execPath, CLI, "server", "--url", http.url.href, "--suite", "all", "-o", outDir], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);

  const results = new Map<string, Check[]>();
  for (const dir of readdirSync(outDir)) {
    const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
    results.set(scenario, JSON.parse(readFileSync(join(outDir, dir, "checks.json"), "utf8")) as Check[]);
  }
  const context = `${stdout.slice(-3000)}\n${stderr.slice(-2000)}`;
  // Every fixture-backed scenario ran.
  for (const scenario of [
    "tools-call-simple-text",
    "tools-call-with-logging",
    "tools-call-with-progress",
    "tools-call-sampling",
    "elicitation-sep1330-enums",
    "resources-subscribe",
    "prompts-get-with-image",
    "completion-complete",
    "json-schema-2020-12",
  ])
    expect(results.has(scenario), `${scenario} did not run:\n${context}`).toBe(true);
  expect(results.size).toBeGreaterThanOrEqual(30);

  const failures = [...results].flatMap(([scenario, checks]) =>
    checks
      .filter((c) => c.status === "FAILURE" && !TRANSPORT_POLICY_FAILURES.has(scenario))
      .map((c) => `${scenario}/${c.id}: ${c.errorMessage}`),
  );
  expect(failures).toEqual([]);
  const passed = [...results.values()].flat().filter((c) => c.status === "SUCCESS").length;
  expect(passed).toBeGreaterThanOrEqual(40);
}, 120_000);
