/**
 * `agentd serve --http --metrics`: GET /metrics in the Prometheus text format, scraped with real HTTP
 * requests from a live server whose runs were made over MCP (the testkit gateway as the model, the recording
 * MCP server as the tool), parsed with an independent parser and checked line by line against the format's
 * rules; guarded by its own token or by operator credentials; off unless switched on.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Turn } from "@agentd/testkit";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { serveWorld, toolLike } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";
import { expositionProblems } from "./__fixtures__/serve/exposition-rules.ts";

setDefaultTimeout(60_000);

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await stopAllServe();
  await world?.close();
  world = undefined;
});

/** Every run: call the recording server's echo once, then answer. */
const echoOnce: Turn = (req) =>
  req.lastToolResult !== undefined ? { text: "done" } : { toolCalls: [{ name: toolLike(req, "echo"), arguments: { text: "metrics" } }] };

async function connect(url: URL, token?: string): Promise<Client> {
  const client = new Client({ name: "metrics-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(url, token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  );
  clients.push(client);
  return client;
}

const scrape = (url: URL, token?: string) =>
  fetch(new URL("/metrics", url), token ? { headers: { authorization: `Bearer ${token}` } } : {});
const sample = (families: ReturnType<typeof parsePrometheusTextFormat>, name: string, labels: Record<string, string> = {}) =>
  families.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));

test("/metrics with its own token: runs, tokens by kind, latency, tool calls and sessions, in valid exposition text", async () => {
  world = await serveWorld([echoOnce], { onExhausted: "repeat-last" });
  const tokenFile = join(world.ws.dir, "metrics-token");
  writeFileSync(tokenFile, "scrape-secret-1\n");
  const agentd = await startServe(["--http", "127.0.0.1:0", "--config", world.config, "--metrics-token-file", tokenFile], {
    env: world.env,
  });
  const client = await connect(agentd.url);
  for (const runId of ["m-1", "m-2"]) {
    const r = await client.callTool({ name: "agent.run", arguments: { instruction: "count me", runId } });
    expect(r.isError).toBeFalsy();
  }

  expect((await scrape(agentd.url)).status).toBe(401);
  expect((await scrape(agentd.url, "wrong-token")).status).toBe(401);
  const res = await scrape(agentd.url, "scrape-secret-1");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = await res.text();
  expect(expositionProblems(text)).toEqual([]);

  const families = parsePrometheusTextFormat(text);
  expect(families.find((f) => f.name === "agentd_runs_total")?.type).toBe("COUNTER");
  expect(sample(families, "agentd_runs_total", { outcome: "succeeded", via: "mcp" })?.value).toBe("2");
  const latency = families.find((f) => f.name === "agentd_run_duration_seconds");
  expect(latency?.type).toBe("HISTOGRAM");
  expect(latency?.metrics[0]?.count).toBe("2");
  expect(latency?.metrics[0]?.buckets?.["+Inf"]).toBe("2");
  expect(sample(families, "agentd_runs_active")?.value).toBe("0");
  // Two runs of two turns each: every kind is present, input and output counted.
  for (const kind of ["input", "output", "cache_read", "cache_write", "reasoning"])
    expect(sample(families, "agentd_tokens_total", { kind })).toBeDefined();
  expect(Number(sample(families, "agentd_tokens_total", { kind: "input" })?.value)).toBeGreaterThan(0);
  expect(Number(sample(families, "agentd_tokens_total", { kind: "output" })?.value)).toBeGreaterThan(0);
  expect(sample(families, "agentd_tool_calls_total", { outcome: "ok", server: "rec" })?.value).toBe("2");
  expect(Number(sample(families, "agentd_http_sessions")?.value)).toBeGreaterThanOrEqual(1);
  // The scrape token never reaches the logs.
  expect(JSON.stringify(agentd.events())).not.toContain("scrape-secret-1");
});

test("/metrics without its own token: operators scrape with their credentials, other principals get 403", async () => {
  world = await serveWorld([echoOnce], { onExhausted: "repeat-last" });
  const users = join(world.ws.dir, "tokens");
  const operators = join(world.ws.dir, "operator-tokens");
  writeFileSync(users, "user-token-0123456789\n");
  writeFileSync(operators, "operator-token-0123456789\n");
  const agentd = await startServe(
    ["--http", "127.0.0.1:0", "--config", world.config, "--metrics", "--auth-tokens", users, "--operator-tokens", operators],
    { env: world.env },
  );
  expect((await scrape(agentd.url)).status).toBe(401);
  expect((await scrape(agentd.url, "user-token-0123456789")).status).toBe(403);
  const ok = await scrape(agentd.url, "operator-token-0123456789");
  expect(ok.status).toBe(200);
  expect(expositionProblems(await ok.text())).toEqual([]);
});

test("/metrics is off unless switched on", async () => {
  world = await serveWorld([echoOnce], { onExhausted: "repeat-last" });
  const agentd = await startServe(["--http", "127.0.0.1:0", "--config", world.config], { env: world.env });
  expect((await scrape(agentd.url)).status).toBe(404);
});
