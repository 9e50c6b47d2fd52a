import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { MemoryTransport } from "../../transport/memory.ts";
import type { AgentdError } from "../../wire/errors.ts";
import { Protocol } from "./protocol.ts";
import { RawPeer } from "../__fixtures__/test-peer.ts";

// Outbound requests share one deadline timer per peer (pending-requests.ts): these check that timeouts,
// ceilings, progress resets, aborts and close behave as one timer per request did.

const open: Protocol[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

async function setup() {
  const [a, b] = MemoryTransport.createPair();
  const protocol = new Protocol(a);
  open.push(protocol);
  await protocol.start();
  const raw = await RawPeer.attach(b);
  return { protocol, raw };
}

/** Outcomes in the order they happened. */
function outcomes() {
  const log: { name: string; code: unknown; error?: AgentdError; at: number }[] = [];
  const watch = (name: string, p: Promise<unknown>) =>
    p.then(
      () => void log.push({ name, code: "ok", at: performance.now() }),
      (e: AgentdError) => void log.push({ name, code: e.code, error: e, at: performance.now() }),
    );
  return { log, watch };
}

const cancels = (raw: RawPeer) => raw.received.filter((m) => m.method === "notifications/cancelled").map((m) => m.params);

describe("outbound requests on one deadline timer", () => {
  test("requests with different timeouts time out in timeout order, each with its own error and cancellation; an answered one is left alone", async () => {
    const { protocol, raw } = await setup();
    const { log, watch } = outcomes();
    const t0 = performance.now();
    // The answer must arrive before the first timeout: 300 ms leaves a loaded machine room for that round trip.
    const timeouts = { a: 1200, b: 300, c: 900, d: 600, e: 300 };
    const sent = Object.entries(timeouts).map(([name, timeoutMs]) => watch(name, protocol.request("tools/list", undefined, { timeoutMs })));
    const answered = watch("answered", protocol.request("tools/list", undefined, { timeoutMs: 600 }));
    await raw.next((m) => m.method === "tools/list" && m.id === 6);
    await raw.respond(6, { tools: [] });
    await Promise.all([...sent, answered]);
    expect(log.map((o) => o.name)).toEqual(["answered", "b", "e", "d", "c", "a"]);
    for (const o of log.slice(1)) {
      const timeoutMs = timeouts[o.name as keyof typeof timeouts];
      expect(o.code).toBe("E_TIMEOUT");
      expect(o.error!.message).toBe(`tools/list timed out after ${timeoutMs}ms without a response`);
      expect(o.error!.options.data).toEqual({ method: "tools/list", timeoutMs, maxTotalTimeoutMs: 3_600_000, ceiling: false });
      expect(o.at - t0).toBeGreaterThanOrEqual(timeoutMs);
    }
    // Ids follow the send order a..e (1..5); the cancellations follow the timeouts.
    const idOf = (name: string) => Object.keys(timeouts).indexOf(name) + 1;
    await raw.next((m) => m.method === "notifications/cancelled" && m.params.requestId === idOf("a"));
    expect(cancels(raw)).toEqual(["b", "e", "d", "c", "a"].map((n) => ({ requestId: idOf(n), reason: "request timed out" })));
  });

  test("aborting the earliest request: it rejects and is cancelled now; the later one still times out at its own deadline", async () => {
    const { protocol, raw } = await setup();
    const { log, watch } = outcomes();
    const ac = new AbortController();
    const t0 = performance.now();
    const first = watch("first", protocol.request("tools/list", undefined, { timeoutMs: 20, signal: ac.signal }));
    const second = watch("second", protocol.request("tools/list", undefined, { timeoutMs: 80 }));
    ac.abort("stop");
    await Promise.all([first, second]);
    expect(log.map((o) => [o.name, o.code])).toEqual([
      ["first", "E_ABORTED"],
      ["second", "E_TIMEOUT"],
    ]);
    expect(log[1]!.at - t0).toBeGreaterThanOrEqual(80);
    await raw.next((m) => m.method === "notifications/cancelled" && m.params.requestId === 2);
    expect(cancels(raw)).toEqual([
      { requestId: 1, reason: "request aborted by the caller" },
      { requestId: 2, reason: "request timed out" },
    ]);
  });

  test("progress resets a request's timeout (unless it opted out), never past its ceiling", async () => {
    const { protocol, raw } = await setup();
    const { log, watch } = outcomes();
    const progressAt: Record<string, number> = {};
    const onprogress = (name: string) => () => void (progressAt[name] ??= performance.now());
    const t0 = performance.now();
    // "trigger" times out first; progress for the others is sent only then, 100+ ms after they were sent.
    const trigger = watch("trigger", protocol.request("tools/list", undefined, { timeoutMs: 100 }));
    const reset = watch("reset", protocol.request("tools/list", undefined, { timeoutMs: 1_000, onprogress: onprogress("reset") }));
    const fixed = watch(
      "fixed",
      protocol.request("tools/list", undefined, { timeoutMs: 1_000, resetTimeoutOnProgress: false, onprogress: onprogress("fixed") }),
    );
    const capped = watch(
      "capped",
      protocol.request("tools/list", undefined, { timeoutMs: 1_000, maxTotalTimeoutMs: 1_050, onprogress: onprogress("capped") }),
    );
    await trigger;
    for (const id of [2, 3, 4]) await raw.notify("notifications/progress", { progressToken: id, progress: 1 });
    await Promise.all([reset, fixed, capped]);
    expect(Object.keys(progressAt).sort()).toEqual(["capped", "fixed", "reset"]);
    // Without a reset: "fixed" at t0+1000; "capped" at its ceiling t0+1050 (its reset timeout is later);
    // "reset" 1000 ms after its progress (which came after t0+100).
    expect(log.map((o) => [o.name, o.code, o.error?.options.data])).toEqual([
      ["trigger", "E_TIMEOUT", expect.objectContaining({ ceiling: false })],
      ["fixed", "E_TIMEOUT", expect.objectContaining({ ceiling: false, timeoutMs: 1_000 })],
      ["capped", "E_TIMEOUT", expect.objectContaining({ ceiling: true, maxTotalTimeoutMs: 1_050 })],
      ["reset", "E_TIMEOUT", expect.objectContaining({ ceiling: false, timeoutMs: 1_000 })],
    ]);
    const at = Object.fromEntries(log.map((o) => [o.name, o.at]));
    expect(at.reset! - progressAt.reset!).toBeGreaterThanOrEqual(1_000);
    expect(at.capped! - t0).toBeGreaterThanOrEqual(1_050);
    expect(log[2]!.error!.message).toBe("tools/list exceeded its maximum total time of 1050ms");
    await raw.next((m) => m.method === "notifications/cancelled" && m.params.requestId === 2);
    expect(cancels(raw).map((c) => c.reason)).toEqual([
      "request timed out",
      "request timed out",
      "maximum total time exceeded",
      "request timed out",
    ]);
  });

  test("a closed peer rejects everything pending with E_CONNECTION_CLOSED and sends no cancellation", async () => {
    const { protocol, raw } = await setup();
    const { log, watch } = outcomes();
    const all = [50, 600_000, Infinity].map((timeoutMs, i) => watch(`r${i}`, protocol.request("tools/list", undefined, { timeoutMs })));
    await raw.next((m) => m.method === "tools/list" && m.id === 3);
    await protocol.close();
    await Promise.all(all);
    expect(log.map((o) => o.code)).toEqual(["E_CONNECTION_CLOSED", "E_CONNECTION_CLOSED", "E_CONNECTION_CLOSED"]);
    expect(cancels(raw)).toEqual([]);
  });
});

describe("the deadline timer keeps the process alive exactly while a request with a timeout is pending", () => {
  const FIXTURE = join(import.meta.dir, "__fixtures__", "pending-liveness.ts");
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  afterEach(() => {
    if (proc && proc.exitCode === null) process.kill(proc.pid, "SIGKILL");
    proc = undefined;
  });
  const run = async (mode: string) => {
    proc = Bun.spawn([process.execPath, FIXTURE, mode], { stdout: "pipe", stderr: "inherit" });
    const out = await new Response(proc.stdout as ReadableStream).text();
    return { out: out.trim().split("\n").filter(Boolean), code: await proc.exited };
  };

  test("pending requests hold the process until they time out; one without a timeout does not", async () => {
    // A timer that did not hold the process would let it exit with nothing printed; one that held it for the
    // request without a timeout would never let it exit.
    expect(await run("pending")).toEqual({ out: ["short E_TIMEOUT", "middle E_TIMEOUT"], code: 0 });
  }, 30_000);

  test("closing rejects every pending request and lets the process exit long before their 600 s timeouts", async () => {
    expect(await run("closed")).toEqual({ out: ["r1 E_CONNECTION_CLOSED", "r2 E_CONNECTION_CLOSED", "r3 E_CONNECTION_CLOSED"], code: 0 });
  }, 30_000);

  test("an answered request lets the process exit long before its 600 s timeout", async () => {
    expect(await run("answered")).toEqual({ out: ["r ok"], code: 0 });
  }, 30_000);
});
