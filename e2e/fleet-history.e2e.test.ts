/**
 * The fleet's run history: two real `agentd serve --http` processes share one real `agentd store --http`
 * (directory backend) through `durability.store`. A run finished on replica A is listed by B's
 * `agent://runs` (with the replica that ran it) and B's `agent://runs/{runId}` reads the same record as A's;
 * a non-operator on B neither lists nor reads another principal's run from A, an operator lists it; with the
 * store gone, B lists its own runs and logs one warning.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";
import { startStoreProcess } from "./__fixtures__/store-process.ts";
import { stopAll } from "./__fixtures__/agentd-process.ts";

const ALICE = "alice-fleet-token-0123456789";
const BOB = "bob-fleet-token-0123456789";
const OPS = "ops-fleet-token-0123456789";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await stopAllServe();
  for (const c of cleanups.splice(0).reverse()) await c();
  await stopAll();
}, 30_000);

async function fleet() {
  const store = await startStoreProcess(["--dir", "store-data"]);
  let storeStopped = false;
  cleanups.push(() => (storeStopped ? undefined : store.stop()));
  const world = await serveWorld([(req) => ({ text: `done: ${req.messages.find((m) => m.role === "user")?.text ?? ""}` })], {
    onExhausted: "repeat-last",
  });
  cleanups.push(() => world.close());
  world.ws.writeConfig({
    durability: {
      store: { url: store.url, headers: { Authorization: "Bearer ${STORE_TOKEN}" } },
      claims: { holder: "${POD_NAME}" },
    },
  });
  const users = join(world.ws.dir, "tokens.txt");
  const ops = join(world.ws.dir, "operators.txt");
  writeFileSync(users, `${ALICE}\n${BOB}\n`);
  writeFileSync(ops, `${OPS}\n`);
  const replica = (name: string) =>
    startServe(["--http", "127.0.0.1:0", "--config", world.config, "--auth-tokens", users, "--operator-tokens", ops, "--grace", "1s"], {
      env: { ...world.env, STORE_TOKEN: store.token, POD_NAME: name, AGENT_LOG_LEVEL: "debug" },
      cwd: world.ws.dir,
    });
  const [a, b] = await Promise.all([replica("replica-a"), replica("replica-b")]);
  const stopStore = async () => {
    storeStopped = true;
    await store.stop();
  };
  return { a, b, stopStore };
}

async function client(serve: ServeProcess, token: string): Promise<Client> {
  const c = new Client({ name: "fleet-history-test", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(serve.url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  cleanups.push(() => c.close());
  return c;
}

const run = (c: Client, runId: string, instruction: string) =>
  c.callTool({ name: "agent.run", arguments: { instruction, runId } }, undefined, { timeout: 60_000 }) as Promise<{ isError?: boolean }>;

async function read(c: Client, uri: string): Promise<any> {
  const r = await c.readResource({ uri });
  return JSON.parse((r.contents[0] as { text: string }).text);
}

/** Resolves once `serve` has written `runId`'s record to the store. */
const written = (serve: ServeProcess, runId: string) => serve.waitForEvent((e) => e.event === "run-history.written" && e.runId === runId);

describe("the fleet's run history (durability.store)", () => {
  test("a run on replica A is listed by B and reads the same there; principals see only their own", async () => {
    const { a, b } = await fleet();
    const [aliceA, aliceB, bobB, opsB] = await Promise.all([client(a, ALICE), client(b, ALICE), client(b, BOB), client(b, OPS)]);
    expect((await run(aliceA, "fleet-1", "Count the ships")).isError).toBeFalsy();
    await written(a, "fleet-1");
    expect((await run(bobB, "bob-1", "Bob's own work")).isError).toBeFalsy();
    await written(b, "bob-1");

    const listed = await read(aliceB, "agent://runs");
    expect(listed.runs.map((r: any) => [r.runId, r.replica, r.status, r.answer])).toEqual([
      ["fleet-1", "replica-a", "succeeded", "done: Count the ships"],
    ]);
    const onA = await read(aliceA, "agent://runs/fleet-1");
    const onB = await read(aliceB, "agent://runs/fleet-1");
    expect(onB).toEqual(onA);
    expect(onB.replica).toBe("replica-a");
    expect(onB.result.text).toBe("done: Count the ships");
    expect(onB.detail.turns.length).toBe(1);

    // Bob on B: his own run only; Alice's run from A is not his to list or read.
    expect((await read(bobB, "agent://runs")).runs.map((r: any) => r.runId)).toEqual(["bob-1"]);
    expect((await read(bobB, "agent://runs?principal=bearer%3Abearer%230")).runs).toEqual([]);
    await expect(read(bobB, "agent://runs/fleet-1")).rejects.toThrow(/no run fleet-1/);

    // The operator on B lists both, each with its principal and replica, and filters as on one replica.
    const all = await read(opsB, "agent://runs");
    expect(all.runs.map((r: any) => [r.runId, r.replica]).sort()).toEqual([
      ["bob-1", "replica-b"],
      ["fleet-1", "replica-a"],
    ]);
    expect(new Set(all.runs.map((r: any) => r.principal)).size).toBe(2);
    expect((await read(opsB, "agent://runs?q=ships")).runs.map((r: any) => r.runId)).toEqual(["fleet-1"]);
    expect((await read(opsB, "agent://runs/fleet-1")).result.text).toBe("done: Count the ships");
  }, 90_000);

  test("with the store gone, a replica lists its own runs and logs one warning", async () => {
    const { a, b, stopStore } = await fleet();
    const [aliceA, aliceB] = await Promise.all([client(a, ALICE), client(b, ALICE)]);
    await run(aliceA, "from-a", "Work on A");
    await written(a, "from-a");
    await run(aliceB, "from-b", "Work on B");
    await written(b, "from-b");
    expect((await read(aliceB, "agent://runs")).runs.map((r: any) => r.runId).sort()).toEqual(["from-a", "from-b"]);

    await stopStore();
    // A listing read from the store serves for a second: the next read past it finds the store gone.
    const ids = async () => (await read(aliceB, "agent://runs")).runs.map((r: any) => r.runId);
    const deadline = Date.now() + 10_000;
    while ((await ids()).length > 1 && Date.now() < deadline) await Bun.sleep(100);
    for (let i = 0; i < 3; i++) expect(await ids()).toEqual(["from-b"]);
    expect((await read(aliceB, "agent://runs/from-b")).result.text).toBe("done: Work on B");
    const warnings = b.events().filter((e) => e.event === "run-history.store-unavailable");
    expect(warnings.length).toBe(1);
    expect(warnings[0]?.level).toBe("warn");
    // The replica is still serving.
    expect((await fetch(new URL("/healthz", b.url))).status).toBe(200);
  }, 90_000);
});
