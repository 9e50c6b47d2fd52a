/**
 * ManagedMcpClient over stdio against a real child process (`__fixtures__/crashy-server.ts`): the child is
 * SIGKILLed or crashes mid-call, and the client brings it back.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { memoryLogger } from "../../../log.ts";
import { AgentdError } from "../../../wire/errors.ts";
import { RUN_ID_META_KEY } from "../../protocol/meta.ts";
import { CrashyState, alive, next, records, RESOURCE, stdioFactory, textOf, until } from "./__fixtures__/crashy.ts";
import { ManagedMcpClient, type ManagedClientOptions } from "./managed-client.ts";

// Real processes on a loaded machine: generous ceilings; every wait below fails on its own deadline first.
setDefaultTimeout(60_000);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const toolText = (r: { content: Array<{ type: string; text?: string }> }) => r.content.map((c) => c.text ?? "").join("");

async function setup(reconnect: ManagedClientOptions["reconnect"] = { initialDelayMs: 20, maxDelayMs: 200 }) {
  const state = new CrashyState("v1");
  const log = memoryLogger();
  const children = stdioFactory(state);
  const client = new ManagedMcpClient({
    name: "crashy",
    transportFactory: children.factory,
    clientInfo: { name: "test", version: "0" },
    reconnect,
    logger: log,
  });
  cleanups.push(() => state.dispose());
  cleanups.push(() => client.close());
  await client.start({ timeoutMs: 20_000 });
  return { state, log, children, client };
}

describe("ManagedMcpClient over stdio", () => {
  test("a killed child is restarted: re-subscribed, `reconnected` fires, a read sees the change made while down", async () => {
    const { state, log, children, client } = await setup();
    const updates: string[] = [];
    client.onResourceUpdated((uri) => updates.push(uri));
    await client.subscribe(RESOURCE);
    expect(textOf(await client.readResource(RESOURCE))).toBe("v1");
    const firstPid = children.livePid();

    state.down(true); // the server cannot come back until the change is written
    const disconnected = next(client.events, "disconnected");
    process.kill(firstPid, "SIGKILL");
    expect((await disconnected).reason).toBe("closed");
    expect(client.connected).toBe(false);
    state.setResource("v2");
    await until(() => records(log, "mcp.reconnect_failed").length >= 1, "a failed reconnect attempt while down");

    const reconnected = next(client.events, "reconnected");
    state.down(false);
    await reconnected;
    expect(client.connected).toBe(true);
    expect(children.livePid()).not.toBe(firstPid);
    expect(alive(firstPid)).toBe(false);
    expect(client.subscriptions()).toEqual([RESOURCE]);
    expect(textOf(await client.readResource(RESOURCE))).toBe("v2");

    // The new process holds the subscription: a change there is pushed to us.
    await client.callTool("set", { text: "v3" });
    await until(() => updates.includes(RESOURCE), "resources/updated from the restarted child");
    expect(textOf(await client.readResource(RESOURCE))).toBe("v3");
    const done = records(log, "mcp.reconnected");
    expect(done).toHaveLength(1);
    expect(done[0]!.subscriptions).toBe(1);
  });

  test("a tools/call made during the outage waits for the reconnect and succeeds", async () => {
    const { state, log, children, client } = await setup();
    state.down(true);
    const disconnected = next(client.events, "disconnected");
    process.kill(children.livePid(), "SIGKILL");
    await disconnected;

    let settled = false;
    const call = client.callTool("echo", { text: "still here" }, { timeoutMs: 30_000 }).finally(() => (settled = true));
    await until(() => records(log, "mcp.reconnect_failed").length >= 2, "two failed attempts while the call waits");
    expect(settled).toBe(false);
    state.down(false);
    expect(toolText(await call)).toBe("still here");
    expect(state.calls().filter((c) => c.name === "echo")).toHaveLength(1);
  });

  test("a tools/call in flight when the child crashes fails clearly and is not replayed", async () => {
    const { state, client } = await setup();
    const reconnected = next(client.events, "reconnected");
    const error = await client.callTool("crash").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(AgentdError.isInstance(error)).toBe(true);
    expect((error as AgentdError).code).toBe("E_CONNECTION_CLOSED");
    expect((error as AgentdError).message).toMatch(/crashy.*tools\/call.*not replayed/);
    await reconnected;
    expect(state.calls().filter((c) => c.name === "crash")).toHaveLength(1);
    expect(toolText(await client.callTool("echo", { text: "after" }))).toBe("after");
  });

  test("a read in flight when the child dies is replayed once on the new child", async () => {
    const { state, children, client } = await setup();
    state.hold(true);
    const read = client.readResource("test://slow", { timeoutMs: 30_000 });
    await until(() => state.calls().some((c) => c.name === "read-slow"), "the read to reach the child");
    state.hold(false);
    process.kill(children.livePid(), "SIGKILL");
    expect(textOf(await read)).toBe("slow");
    const reads = state.calls().filter((c) => c.name === "read-slow");
    expect(reads).toHaveLength(2);
    expect(reads[0]!.pid).not.toBe(reads[1]!.pid);
  });

  test("backoff is bounded: attempts count up, every wait stays under its exponential cap and maxDelayMs", async () => {
    const policy = { initialDelayMs: 10, maxDelayMs: 80 };
    const { state, log, children, client } = await setup(policy);
    state.down(true);
    process.kill(children.livePid(), "SIGKILL");
    await until(() => records(log, "mcp.reconnecting").length >= 7, "seven reconnect attempts");
    const reconnected = next(client.events, "reconnected");
    state.down(false);
    const { attempts } = await reconnected;

    const tries = records(log, "mcp.reconnecting");
    expect(tries.map((r) => r.attempt)).toEqual(tries.map((_, i) => i + 1));
    tries.forEach((r, i) => {
      const cap = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** i);
      expect(r.delayMs as number).toBeGreaterThanOrEqual(0);
      expect(r.delayMs as number).toBeLessThanOrEqual(cap);
    });
    expect(attempts).toBe(tries.length);
    expect(records(log, "mcp.reconnected")[0]!.attempts).toBe(tries.length);
    expect(records(log, "mcp.disconnected")[0]).toMatchObject({ server: "crashy", reason: "closed" });
  });

  test("maxAttempts: gives up with `failed`; later calls reject with E_UPSTREAM naming the server", async () => {
    const { state, children, client } = await setup({ initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 3 });
    state.down(true);
    const failed = next(client.events, "failed");
    process.kill(children.livePid(), "SIGKILL");
    expect((await failed).attempts).toBe(3);
    expect(client.state).toBe("failed");
    const error = await client.listTools().catch((e: unknown) => e);
    expect((error as AgentdError).code).toBe("E_UPSTREAM");
    expect((error as AgentdError).message).toContain("'crashy'");
  });

  test("close() during an outage stops reconnecting, rejects waiting calls and leaves no child", async () => {
    const { state, log, children, client } = await setup({ initialDelayMs: 5, maxDelayMs: 20 });
    state.down(true);
    process.kill(children.livePid(), "SIGKILL");
    const waiting = client.ping({ timeoutMs: 30_000 }).catch((e: unknown) => e);
    await until(() => records(log, "mcp.reconnect_failed").length >= 1, "a failed attempt");
    const closed = next(client.events, "closed");
    await client.close();
    await closed;
    expect(((await waiting) as AgentdError).code).toBe("E_CONNECTION_CLOSED");
    const attemptsAtClose = records(log, "mcp.reconnecting").length;
    expect(client.state).toBe("closed");
    // Nothing keeps running: every child that was started is gone, and no further attempt is logged.
    for (const pid of state.pids()) await until(() => !alive(pid), `child ${pid} to be gone`);
    await client.ping().catch(() => {});
    expect(records(log, "mcp.reconnecting").length).toBe(attemptsAtClose);
  });

  test("start() rejects without retrying when the server cannot start", async () => {
    const state = new CrashyState();
    cleanups.push(() => state.dispose());
    state.down(true);
    const log = memoryLogger();
    const client = new ManagedMcpClient({
      name: "crashy",
      transportFactory: stdioFactory(state).factory,
      clientInfo: { name: "t", version: "0" },
      logger: log,
    });
    cleanups.push(() => client.close());
    await expect(client.start({ timeoutMs: 20_000 })).rejects.toThrow();
    expect(records(log, "mcp.reconnecting")).toHaveLength(0);
    expect(client.state).toBe("idle");
  });

  test("every tools/call carries the run id in _meta", async () => {
    const { state, client } = await setup();
    await client.callTool("bump", {}, { runId: "run-42" });
    expect(state.calls().find((c) => c.name === "bump")?.meta[RUN_ID_META_KEY]).toBe("run-42");
  });
});
