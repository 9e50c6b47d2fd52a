/**
 * createAgent over managed MCP connections, with a real stdio child (`mcp/client/managed/__fixtures__`): a server
 * that crashes mid-run is restarted and the run goes on; a required server that cannot start fails
 * `connect()` with E_UPSTREAM naming it.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { memoryLogger } from "../log.ts";
import { callTools, reply, scriptedModel } from "../loop/__fixtures__/scripted-model.ts";
import type { ModelRequest, ToolResultPart } from "../model/language-model.ts";
import { CrashyState, next, records, RESOURCE, stdioConfig } from "../mcp/client/managed/__fixtures__/crashy.ts";
import { ManagedMcpClient } from "../mcp/client/managed/managed-client.ts";
import { systemClock } from "../triggers/clock.ts";
import { SubscriptionSource, type SubscribableClient } from "../triggers/subscription-source.ts";
import type { EmitResult, TriggerEvent } from "../triggers/types.ts";
import { AgentdError } from "../wire/errors.ts";
import { createAgent, type Agent } from "./create-agent.ts";

setDefaultTimeout(60_000);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function track(agent: Agent): Agent {
  cleanups.push(() => agent.close());
  return agent;
}
function state(): CrashyState {
  const s = new CrashyState("v1");
  cleanups.push(() => s.dispose());
  return s;
}
const lastToolResults = (request: ModelRequest): ToolResultPart[] =>
  request.messages.flatMap((m) => (m.role === "tool" ? m.content : [])).slice(-1);

describe("createAgent with managed MCP clients", () => {
  test("a server that crashes mid-run is an observation for the model; the next call reaches the restarted server", async () => {
    const s = state();
    let crashResult: ToolResultPart | undefined;
    const model = scriptedModel([
      callTools([["crashy__crash", {}]]),
      (request) => {
        crashResult = lastToolResults(request)[0];
        return callTools([["crashy__echo", { text: "back again" }]]);
      },
      (request) => reply(`echo said: ${lastToolResults(request)[0]?.output ?? "?"}`),
    ]);
    const log = memoryLogger();
    const agent = track(
      createAgent({ model, mcpServers: { crashy: stdioConfig(s) }, reconnect: { initialDelayMs: 20, maxDelayMs: 200 }, logger: log }),
    );
    await agent.connect();
    const client = agent.clients.get("crashy");
    expect(client).toBeInstanceOf(ManagedMcpClient);

    const result = await agent.run("crash it, then echo", { runId: "run-crash" });
    expect(crashResult?.isError).toBe(true);
    expect(crashResult?.output).toContain("not replayed");
    expect(result.text).toContain("back again");
    expect(s.calls().map((c) => c.name)).toEqual(["crash", "echo"]);
    expect(s.pids()).toHaveLength(2);
    expect(records(log, "mcp.reconnected")).toHaveLength(1);
    expect(agent.clients.get("crashy")).toBe(client!); // the same managed client, a new connection inside
  });

  test("agent.clients serve the trigger layer: subscriptions survive a restart and `reconnected` fires", async () => {
    const s = state();
    const agent = track(
      createAgent({ model: scriptedModel([]), mcpServers: { crashy: stdioConfig(s) }, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } }),
    );
    await agent.connect();
    const client = agent.clients.get("crashy")!;
    expect(client.supportsSubscribe()).toBe(true);
    await client.subscribe(RESOURCE);
    let reconnects = 0;
    client.onReconnected(() => reconnects++);
    const reconnected = next(client.events, "reconnected");
    await client.callTool("crash").catch(() => {});
    await reconnected;
    expect(reconnects).toBe(1);
    expect(client.subscriptions()).toEqual([RESOURCE]);
  });

  test("a SubscriptionSource over a managed client re-reads after a restart: the change made while down fires a new event", async () => {
    const s = state();
    const agent = track(
      createAgent({ model: scriptedModel([]), mcpServers: { crashy: stdioConfig(s) }, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } }),
    );
    await agent.connect();
    const client: SubscribableClient = agent.clients.get("crashy")!; // structural: no adapter needed
    const events: TriggerEvent[] = [];
    let wake = () => {};
    const source = new SubscriptionSource({ client, uri: RESOURCE, server: "crashy" });
    cleanups.push(() => source.stop());
    const emitted = (n: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${n} trigger events`)), 30_000);
        wake = () => events.length >= n && (clearTimeout(timer), resolve());
        wake();
      });
    await source.start({
      triggerId: "inbox",
      clock: systemClock(),
      logger: memoryLogger(),
      end: () => {},
      emit: async (e) => {
        events.push(e);
        wake();
        return { status: "ran", runId: e.runId, outcome: { status: "ok" } } satisfies EmitResult;
      },
    });
    await emitted(1);
    expect((events[0]!.data as { text: string }).text).toBe("v1");

    const managed = agent.clients.get("crashy")!;
    s.down(true);
    const disconnected = next(managed.events, "disconnected");
    await managed.callTool("crash").catch(() => {});
    await disconnected;
    s.setResource("v2 (written while down)");
    s.down(false);
    await emitted(2);
    expect((events[1]!.data as { text: string }).text).toBe("v2 (written while down)");
    expect(events[1]!.runId).not.toBe(events[0]!.runId);
  });

  test("a required server that cannot start rejects connect() with E_UPSTREAM naming it", async () => {
    const s = state();
    s.down(true);
    const agent = track(createAgent({ model: scriptedModel([]), mcpServers: { inbox: stdioConfig(s) } }));
    const error = await agent.connect().catch((e: unknown) => e);
    expect(AgentdError.isInstance(error) && error.code).toBe("E_UPSTREAM");
    expect((error as Error).message).toContain("MCP server 'inbox' is unavailable");
    expect(agent.clients.size).toBe(0);
  });

  test("an optional server that cannot start is skipped with a warning", async () => {
    const good = state();
    const bad = state();
    bad.down(true);
    const log = memoryLogger();
    const agent = track(
      createAgent({
        model: scriptedModel([]),
        mcpServers: { good: stdioConfig(good), bad: { ...stdioConfig(bad), required: false } },
        logger: log,
      }),
    );
    await agent.connect();
    expect([...agent.clients.keys()]).toEqual(["good"]);
    expect(records(log, "mcp.unavailable")[0]).toMatchObject({ server: "bad" });
  });
  test("while an optional server is down, runs list the other servers' tools without waiting for it", async () => {
    const good = state();
    const flaky = state();
    const log = memoryLogger();
    const agent = track(
      createAgent({
        model: scriptedModel([]),
        mcpServers: { good: stdioConfig(good), flaky: { ...stdioConfig(flaky), required: false } },
        reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
        logger: log,
      }),
    );
    expect((await agent.listTools()).map((t) => t.name)).toContain("flaky/echo");
    const managed = agent.clients.get("flaky")!;
    flaky.down(true);
    const disconnected = next(managed.events, "disconnected");
    await managed.callTool("crash").catch(() => {});
    await disconnected;
    const names = (await agent.listTools()).map((t) => t.name);
    expect(names).toContain("good/echo");
    expect(names.some((n) => n.startsWith("flaky/"))).toBe(false);
    expect(records(log, "mcp.tools_skipped")[0]).toMatchObject({ server: "flaky", reason: "not connected" });
    const reconnected = next(managed.events, "reconnected");
    flaky.down(false);
    await reconnected;
    expect((await agent.listTools()).map((t) => t.name)).toContain("flaky/echo");
  });
});
