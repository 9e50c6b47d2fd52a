/**
 * OpenTelemetry end to end: the real `agentd run` process with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at
 * an OTLP receiver on loopback (payloads decoded with the official proto definitions), a fake gateway and
 * a recording MCP server. Checks the span tree, the GenAI/MCP attributes, the metrics, and that the trace
 * context the gateway (HTTP `traceparent`) and the MCP server (`_meta.traceparent`) saw is the span's.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "./__fixtures__/otlp-receiver.ts";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await gateway?.close();
  await receiver?.close();
  ws?.cleanup();
  gateway = receiver = ws = undefined;
});

const SPAN_KIND = { internal: 1, client: 3 } as const;
const STATUS_ERROR = 2;

async function echoGateway(): Promise<FakeGateway> {
  return startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: req.tools.find((t) => t.endsWith("echo")) ?? "echo", arguments: { text: "traced" } }] }),
      (req) => ({ text: `done: ${req.lastToolResult}` }),
    ],
  });
}

const modelEnv = (g: FakeGateway) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: "openai",
  AGENT_MODEL: "test-model",
  AGENT_API_KEY: "sk-x",
});
const byName = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe("agentd run with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  test("exports a run span with chat and tools/call children; the gateway and the MCP server get that trace", async () => {
    ws = new CliWorkspace();
    gateway = await echoGateway();
    receiver = startOtlpReceiver();
    const config = ws.writeConfig({
      model: { prices: { inputPerMTokUsd: 1, outputPerMTokUsd: 2 } },
      mcpServers: { rec: ws.recordingServer() },
    });
    const run = await ws.run(["run", "--config", config, "Echo through the tool"], {
      env: {
        ...modelEnv(gateway),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: "agentd-under-test",
        RUN_ID: "run-otel-1",
      },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("echo: traced");
    // The one-shot path flushes on close: everything is in before the process exited.
    expect(receiver.contentTypes.every((t) => t === "application/x-protobuf")).toBe(true);

    const [root, ...others] = byName(receiver.spans, "invoke_agent agentd");
    expect(others).toHaveLength(0);
    expect(root?.parentSpanId).toBe("");
    expect(root?.kind).toBe(SPAN_KIND.internal);
    expect(root?.resource["service.name"]).toBe("agentd-under-test");
    expect(root?.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "test-model",
      "agentd.run.id": "run-otel-1",
      "agentd.run.outcome": "final",
      "agentd.run.turns": 2,
      "agentd.run.tool_calls": 1,
    });
    const input = Number(root?.attributes["gen_ai.usage.input_tokens"]);
    const output = Number(root?.attributes["gen_ai.usage.output_tokens"]);
    expect(input).toBeGreaterThan(0);
    expect(root?.attributes["agentd.run.cost_usd"]).toBeCloseTo((input * 1 + output * 2) / 1e6, 12);
    const traceId = root?.traceId as string;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    const chats = byName(receiver.spans, "chat test-model").sort(
      (a, b) => Number(a.attributes["agentd.turn"]) - Number(b.attributes["agentd.turn"]),
    );
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.traceId).toBe(traceId);
      expect(chat.parentSpanId).toBe(root?.spanId as string);
      expect(chat.kind).toBe(SPAN_KIND.client);
      expect(chat.attributes["gen_ai.operation.name"]).toBe("chat");
      expect(chat.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(chat.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    }
    expect(chats[0]?.attributes["gen_ai.response.finish_reasons"]).toEqual(["tool-calls"]);

    const [tool] = byName(receiver.spans, "tools/call echo");
    expect(tool?.traceId).toBe(traceId);
    expect(tool?.parentSpanId).toBe(root?.spanId as string);
    expect(tool?.kind).toBe(SPAN_KIND.client);
    expect(tool?.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "agentd.mcp.server": "rec",
    });

    // What the peers saw: each model request carries its chat span, the tools/call its tool span.
    expect(gateway.requests.map((r) => r.headers.traceparent)).toEqual(chats.map((c) => `00-${traceId}-${c.spanId}-01`));
    const call = ws.received().find((m) => m.method === "tools/call");
    expect(call?.params?._meta?.traceparent).toBe(`00-${traceId}-${tool?.spanId}-01`);
    expect(call?.params?._meta?.["agentd.dev/run-id"]).toBe("run-otel-1");

    const metric = (name: string) => receiver?.metrics.filter((m) => m.name === name).flatMap((m) => m.points) ?? [];
    expect(metric("agentd.runs")).toContainEqual({ attributes: { "agentd.run.outcome": "final" }, value: 1 });
    const tokenTypes = metric("gen_ai.client.token.usage").map((p) => p.attributes["gen_ai.token.type"]);
    expect(tokenTypes).toContain("input");
    expect(tokenTypes).toContain("output");
    expect(metric("mcp.client.operation.duration")[0]?.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "echo",
    });
    expect(metric("gen_ai.client.operation.duration").length).toBeGreaterThan(0);
    expect(metric("agentd.run.cost")[0]?.value).toBeCloseTo((input * 1 + output * 2) / 1e6, 12);
    expect(metric("agentd.runs.active")[0]?.value).toBe(0);
  }, 60_000);

  test("a run that fails upstream ends its run span with an error status", async () => {
    ws = new CliWorkspace();
    receiver = startOtlpReceiver();
    // A key the gateway refuses: 401, not retried, so the run fails at once with E_UPSTREAM (exit 5: unauthorized).
    gateway = await startFakeGateway({ dialect: "openai", requireApiKey: "sk-other", script: [{ text: "never" }] });
    const config = ws.writeConfig({});
    const run = await ws.run(["run", "--config", config, "hi"], {
      env: { ...modelEnv(gateway), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    expect(run.code).toBe(5);
    const [root] = byName(receiver.spans, "invoke_agent agentd");
    expect(root?.status.code).toBe(STATUS_ERROR);
    expect(root?.attributes["error.type"]).toBe("E_UPSTREAM");
    const [chat] = byName(receiver.spans, "chat test-model");
    expect(chat?.status.code).toBe(STATUS_ERROR);
  });

  test("OTEL_EXPORTER_OTLP_PROTOCOL=http/json exports OTLP/JSON; the per-signal variable wins for its signal", async () => {
    ws = new CliWorkspace();
    gateway = await echoGateway();
    receiver = startOtlpReceiver();
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const run = await ws.run(["run", "--config", config, "Echo through the tool"], {
      env: {
        ...modelEnv(gateway),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/protobuf",
      },
    });
    expect(run.code).toBe(0);
    expect(receiver.contentTypes).toContain("application/json");
    expect(receiver.contentTypes).toContain("application/x-protobuf");
    const [root] = byName(receiver.spans, "invoke_agent agentd");
    expect(root?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(byName(receiver.spans, "chat test-model")).toHaveLength(2);
    expect(receiver.metrics.some((m) => m.name === "agentd.runs")).toBe(true);
  }, 60_000);

  test("OTEL_EXPORTER_OTLP_PROTOCOL=grpc is refused in one line, before anything starts (no MCP server, no run)", async () => {
    ws = new CliWorkspace();
    gateway = await echoGateway();
    const config = ws.writeConfig({ mcpServers: { recorder: ws.recordingServer() } });
    const run = await ws.run(["run", "--config", config, "hi"], {
      env: { ...modelEnv(gateway), OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("OTEL_EXPORTER_OTLP_PROTOCOL=grpc: agentd exports OTLP over HTTP only");
    expect(run.stderr).not.toContain("    at ");
    expect(gateway.requests).toHaveLength(0);
    // The server was never started: it writes each message it receives (the first is initialize).
    expect(ws.received()).toEqual([]);
  });
});

describe("a triggered run", () => {
  test("an interval firing is a span from the event to the run's end, parent of the run span; trigger lag is recorded", async () => {
    ws = new CliWorkspace();
    receiver = startOtlpReceiver();
    gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "one" }] });
    const config = ws.writeConfig({});
    const run = await ws.run(["run", "--config", config, "--interval", "0", "--max-runs", "1", "Work"], {
      env: { ...modelEnv(gateway), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    expect(run.code).toBe(0);
    const [firing] = byName(receiver.spans, "trigger interval");
    const [root] = byName(receiver.spans, "invoke_agent agentd");
    expect(firing?.parentSpanId).toBe("");
    expect(firing?.attributes).toMatchObject({ "agentd.trigger.id": "interval", "agentd.trigger.kind": "interval" });
    expect(root?.parentSpanId).toBe(firing?.spanId as string);
    expect(root?.traceId).toBe(firing?.traceId as string);
    expect(root?.attributes["agentd.trigger.id"]).toBe("interval");
    const lag = receiver.metrics.filter((m) => m.name === "agentd.trigger.lag").flatMap((m) => m.points);
    expect(lag[0]?.attributes).toEqual({ "agentd.trigger.kind": "interval" });
  }, 60_000);
});

describe("subagents", () => {
  test("a subagent's run joins the parent's trace under the parent's subagent.spawn span", async () => {
    ws = new CliWorkspace();
    receiver = startOtlpReceiver();
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [
        (req) => {
          const user = req.messages.find((m) => m.role === "user")?.text ?? "";
          const answered = req.messages.some((m) => m.role === "assistant");
          if (user.startsWith("CHILD:")) return { text: "child done" };
          const spawn = req.tools.find((t) => t.endsWith("subagent_spawn")) ?? "subagent_spawn";
          return answered ? { text: "root done" } : { toolCalls: [{ name: spawn, arguments: { instruction: "CHILD: do it" } }] };
        },
      ],
    });
    const config = ws.writeConfig({ subagents: { maxDepth: 1 } });
    const run = await ws.run(["run", "--config", config, "Delegate"], {
      env: { ...modelEnv(gateway), OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    expect(run.code).toBe(0);
    const runs = byName(receiver.spans, "invoke_agent agentd");
    expect(runs).toHaveLength(2);
    const root = runs.find((s) => s.parentSpanId === "");
    const [spawn] = byName(receiver.spans, "execute_tool subagent.spawn");
    const child = runs.find((s) => s !== root);
    expect(spawn?.parentSpanId).toBe(root?.spanId as string);
    expect(child?.parentSpanId).toBe(spawn?.spanId as string);
    expect(child?.traceId).toBe(root?.traceId as string);
    expect(String(child?.attributes["agentd.run.id"])).toMatch(/\.sa-[0-9a-f]+$/);
    // The child's model request carried the child's chat span.
    const childChat = byName(receiver.spans, "chat test-model").find((s) => s.parentSpanId === child?.spanId);
    const childRequest = gateway.requests.find((r) => r.messages.find((m) => m.role === "user")?.text.startsWith("CHILD:"));
    expect(childRequest?.headers.traceparent).toBe(`00-${root?.traceId}-${childChat?.spanId}-01`);
  }, 60_000);
});

describe("telemetry off (no OTEL_* endpoint)", () => {
  test("no traceparent reaches the gateway or the MCP server", async () => {
    ws = new CliWorkspace();
    gateway = await echoGateway();
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const run = await ws.run(["run", "--config", config, "Echo"], { env: modelEnv(gateway) });
    expect(run.code).toBe(0);
    expect(gateway.requests).toHaveLength(2);
    for (const r of gateway.requests) expect(r.headers.traceparent).toBeUndefined();
    const call = ws.received().find((m) => m.method === "tools/call");
    expect(call?.params?._meta?.traceparent).toBeUndefined();
  });
});

describe("agentd serve --stdio honours the caller's trace context", () => {
  test("agent.run with _meta.traceparent: the run span is the caller's span's child", async () => {
    ws = new CliWorkspace();
    gateway = await echoGateway();
    receiver = startOtlpReceiver();
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      AGENT_LOG_FORMAT: "json",
      ...modelEnv(gateway),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: "50",
    };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI_MAIN, "serve", "--stdio", "--config", config],
      env,
      stderr: "ignore",
    });
    const client = new Client({ name: "otel-test", version: "1.0.0" });
    const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const callerSpan = "00f067aa0ba902b7";
    try {
      await client.connect(transport);
      const result = await client.callTool({
        name: "agent.run",
        arguments: { instruction: "Echo through the tool" },
        _meta: { traceparent: `00-${callerTrace}-${callerSpan}-01`, tracestate: "vendor=x" },
      });
      expect(result.isError).toBeFalsy();
      await receiver.until(() => byName(receiver?.spans ?? [], "invoke_agent agentd").length > 0);
      const [root] = byName(receiver.spans, "invoke_agent agentd");
      expect(root?.traceId).toBe(callerTrace);
      expect(root?.parentSpanId).toBe(callerSpan);
      expect(gateway.requests[0]?.headers.traceparent).toStartWith(`00-${callerTrace}-`);
      expect(gateway.requests[0]?.headers.tracestate).toBe("vendor=x");
    } finally {
      await client.close();
    }
  }, 60_000);
});
