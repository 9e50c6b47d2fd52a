/**
 * Served runs once across replicas: two real `agentd serve --http` processes share one real `agentd store
 * --http` (directory backend) through `durability.store`. The same `agent.run` run id sent to both runs once:
 * the second caller waits (bounded by `durability.servedRuns.wait`) and gets the first one's answer from the
 * result record in the store; past the wait it is told the run is running elsewhere; a replica killed with
 * SIGKILL mid-run has the run taken over by the one whose caller waits, after the lease. An A2A `SendMessage`
 * with the same `messageId` sent to both replicas runs once too: the second replica's task stays working
 * until the first one's answer is in the store, then completes with it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { RecordedRequest } from "@agentd/testkit";
import { gate, serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";
import { startStoreProcess, type StoreProcess } from "./__fixtures__/store-process.ts";
import { stopAll } from "./__fixtures__/agentd-process.ts";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await stopAllServe();
  for (const c of cleanups.splice(0).reverse()) await c();
  await stopAll();
}, 30_000);

const userText = (req: RecordedRequest) => req.messages.find((m) => m.role === "user")?.text ?? "";

async function fleet(options: { wait: string; lease: string }) {
  const store: StoreProcess = await startStoreProcess(["--dir", "store-data"]);
  cleanups.push(() => store.stop());
  const answer = gate();
  const started = gate();
  const asked: string[] = [];
  const world = await serveWorld(
    [
      async (req) => {
        asked.push(userText(req));
        started.open();
        await answer.promise;
        return { text: `answer to ${userText(req)}` };
      },
    ],
    { onExhausted: "repeat-last" },
  );
  cleanups.push(() => world.close());
  world.ws.writeConfig({
    durability: {
      store: { url: store.url, headers: { Authorization: "Bearer ${STORE_TOKEN}" } },
      claims: { holder: "${POD_NAME}", lease: options.lease },
      servedRuns: { wait: options.wait },
    },
  });
  const replica = (name: string) =>
    startServe(["--http", "127.0.0.1:0", "--a2a", "--config", world.config, "--grace", "1s"], {
      env: { ...world.env, STORE_TOKEN: store.token, POD_NAME: name },
      cwd: world.ws.dir,
    });
  const [a, b] = await Promise.all([replica("replica-a"), replica("replica-b")]);
  return { store, world, answer, started, asked, a, b };
}

async function client(serve: ServeProcess): Promise<Client> {
  const c = new Client({ name: "served-runs-test", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(serve.url));
  cleanups.push(() => c.close());
  return c;
}

const run = (c: Client, runId: string, instruction: string) =>
  c.callTool({ name: "agent.run", arguments: { instruction, runId } }, undefined, { timeout: 60_000 }) as Promise<{
    content: Array<{ text?: string }>;
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
  }>;

describe("served runs across replicas (durability.store)", () => {
  test("the same run id sent to two replicas runs once; the second caller gets the first one's answer", async () => {
    const f = await fleet({ wait: "30s", lease: "3s" });
    const [ca, cb] = await Promise.all([client(f.a), client(f.b)]);
    const first = run(ca, "order-17", "Ship order 17");
    await f.a.waitForEvent((e) => e.event === "claim.acquired");
    const second = run(cb, "order-17", "Ship order 17");
    // The second replica is waiting on the claim, not running: its model is never asked.
    await f.started.promise;
    f.answer.open();
    const [ra, rb] = await Promise.all([first, second]);
    expect(ra.isError).toBeFalsy();
    expect(rb.isError).toBeFalsy();
    expect(ra.content[0]?.text).toContain("answer to Ship order 17");
    expect(rb.content[0]?.text).toContain("answer to Ship order 17");
    expect(rb.structuredContent?.stopReason).toBe("already done");
    expect(f.asked).toEqual(["Ship order 17"]);
    expect(f.b.events().filter((e) => e.event === "run.start").length).toBe(0);
    // A later retry on either replica is answered from the record, still without a run.
    const again = await run(cb, "order-17", "Ship order 17");
    expect(again.content[0]?.text).toContain("answer to Ship order 17");
    expect(f.asked.length).toBe(1);
  }, 90_000);

  test("past the wait, the second caller is told the run is running on another replica", async () => {
    const f = await fleet({ wait: "500ms", lease: "10s" });
    const [ca, cb] = await Promise.all([client(f.a), client(f.b)]);
    const first = run(ca, "slow-1", "Slow work");
    await f.a.waitForEvent((e) => e.event === "claim.acquired");
    const second = await run(cb, "slow-1", "Slow work");
    expect(second.isError).toBe(true);
    expect(second.content[0]?.text).toBe(
      "run slow-1 is running on another replica (replica-a); call again with the same runId for its answer",
    );
    f.answer.open();
    expect((await first).isError).toBeFalsy();
    expect(f.asked).toEqual(["Slow work"]);
  }, 90_000);

  test("a replica killed with SIGKILL mid-run: the waiting caller's replica takes the run over after the lease", async () => {
    const f = await fleet({ wait: "30s", lease: "1500ms" });
    const [ca, cb] = await Promise.all([client(f.a), client(f.b)]);
    void run(ca, "job-9", "Do job 9").catch(() => {}); // its replica dies: no answer comes
    await f.a.waitForEvent((e) => e.event === "claim.acquired");
    await f.started.promise;
    const second = run(cb, "job-9", "Do job 9");
    await f.a.stop("SIGKILL", 0);
    const taken = await f.b.waitForEvent((e) => e.event === "claim.acquired" && e.takenOverFrom === "replica-a");
    expect(taken.runId).toMatch(/^served-/);
    f.answer.open();
    const r = await second;
    expect(r.isError).toBeFalsy();
    expect(r.content[0]?.text).toContain("answer to Do job 9");
    expect(f.asked).toEqual(["Do job 9", "Do job 9"]); // the dead replica's attempt, then the takeover's
  }, 90_000);

  test("A2A SendMessage with the same messageId sent to two replicas runs once; both tasks complete with its answer", async () => {
    const f = await fleet({ wait: "30s", lease: "3s" });
    const send = (serve: ServeProcess) =>
      fetch(new URL("/a2a", serve.url), {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "SendMessage",
          params: { message: { messageId: "msg-42", role: "ROLE_USER", parts: [{ text: "Refund order 42" }] } },
        }),
      }).then(
        (r) =>
          r.json() as Promise<{
            result?: { task?: { status: { state: string }; artifacts?: Array<{ parts: Array<{ text?: string }> }> } };
          }>,
      );
    const first = send(f.a);
    await f.a.waitForEvent((e) => e.event === "claim.acquired");
    const second = send(f.b);
    await f.b.waitForEvent((e) => e.event === "a2a.task");
    await f.started.promise;
    f.answer.open();
    const [ra, rb] = await Promise.all([first, second]);
    for (const r of [ra, rb]) {
      expect(r.result?.task?.status.state).toBe("TASK_STATE_COMPLETED");
      expect(r.result?.task?.artifacts?.[0]?.parts[0]?.text).toBe("answer to Refund order 42");
    }
    expect(f.asked).toEqual(["Refund order 42"]);
  }, 90_000);
});
