/**
 * The run history of a live `agentd serve --http` whose interval trigger fires at start (the testkit gateway
 * as the model, the recording MCP server as the tool): the triggered run is listed in `agent://runs` as started
 * by the trigger, its `agent://runs/{id}` detail has the turns and the tool call, and `/metrics` counts it with
 * its trigger lag.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Turn } from "@agentd/testkit";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { serveWorld, toolLike } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";

setDefaultTimeout(60_000);

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close().catch(() => {});
  client = undefined;
  await stopAllServe();
  await world?.close();
  world = undefined;
});

const echoOnce: Turn = (req) =>
  req.lastToolResult !== undefined
    ? { text: "checked" }
    : { toolCalls: [{ name: toolLike(req, "echo"), arguments: { text: "hourly", apiKey: "sk-live-abcdefghijklmnop1234" } }] };

test("a triggered run is in agent://runs as the trigger's, with its turns and tool call, and /metrics counts its lag", async () => {
  world = await serveWorld([echoOnce], { onExhausted: "repeat-last" });
  const config = world.ws.writeConfig({
    mcpServers: { rec: world.ws.recordingServer() },
    triggers: { interval: { every: "1h", instruction: "hourly check" } },
  });
  const agentd = await startServe(["--http", "127.0.0.1:0", "--config", config, "--metrics"], { env: world.env });
  const ended = await agentd.waitForEvent((e) => e.event === "trigger.run-end");
  client = new Client({ name: "history-test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(agentd.url));
  const read = async (uri: string) => JSON.parse(((await client!.readResource({ uri })).contents[0] as { text: string }).text);

  const page = await read("agent://runs?via=trigger");
  expect(page.runs).toEqual([
    expect.objectContaining({
      runId: ended.runId,
      status: "succeeded",
      via: "trigger",
      trigger: "interval",
      instruction: "hourly check",
      answer: "checked",
    }),
  ]);
  expect((await read("agent://runs?trigger=interval")).runs).toHaveLength(1);
  expect((await read("agent://runs?via=mcp")).runs).toEqual([]);

  const run = await read(`agent://runs/${ended.runId}`);
  expect(run.detail.turns).toHaveLength(2);
  const call = run.detail.turns[0].toolCalls[0];
  expect(call).toMatchObject({ server: "rec", durationMs: expect.any(Number), resultExcerpt: expect.stringContaining("echo: hourly") });
  expect(call.arguments).toContain('"text":"hourly"');
  expect(call.arguments).not.toContain("sk-live-abcdefghijklmnop1234");
  expect(run.detail.turns[1]).toMatchObject({ finishReason: "stop", toolCalls: [] });

  const families = parsePrometheusTextFormat(await (await fetch(new URL("/metrics", agentd.url))).text());
  const lag = families.find((f) => f.name === "agentd_trigger_lag_seconds");
  expect(lag?.metrics[0]?.buckets?.["+Inf"]).toBe("1");
  expect(families.find((f) => f.name === "agentd_runs_total")?.metrics).toEqual([
    expect.objectContaining({ labels: { code: "", outcome: "succeeded", via: "trigger" }, value: "1" }),
  ]);
});
