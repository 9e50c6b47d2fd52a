/**
 * Served MCP tasks across a restart of `agentd serve --http` (tasks on, bearer tokens), driven by the
 * official `@modelcontextprotocol/sdk` 1.32.2 client's `experimental.tasks` API. Alice creates an
 * `agent.run` task whose model answer is held back; agentd is killed with SIGKILL (its whole process tree,
 * by PID) and started again on the same config:
 * - with the checkpoint (`agentd store --dir`), the task is re-created under the same id and owner and its
 *   run re-run under the same run id: Alice (a new session) sees `working`, then gets the result; Bob's
 *   token still gets "not found";
 * - without it, the task id is "not found" (-32602) after the restart — the documented default.
 * A SIGTERM whose grace runs out before the run ends keeps the task noted too (it is re-run the same way).
 */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { CLI_MAIN } from "@agentd/test-support/cli-process";
import { gate, serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";
import { descendantsOf } from "./__fixtures__/proc-tree.ts";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef01";
const clients: Client[] = [];
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await stopAllServe();
  for (const c of cleanups.splice(0).reverse()) await c();
}, 30_000);

async function connect(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: "tasks-restart-proof", version: "1.0.0" });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** SIGKILL agentd and every process under it (its store, its MCP servers), by PID. */
async function killTree(serve: ServeProcess): Promise<void> {
  const pids = descendantsOf(serve.pid);
  process.kill(serve.pid, "SIGKILL");
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await serve.exited;
}

async function scenario(checkpoint: boolean, stop: "SIGKILL" | "SIGTERM" = "SIGKILL") {
  // Every run asks its model once; the answer waits until the test opens `answer` (after the restart).
  const answer = gate();
  let asked = 0;
  const askedOnce = gate();
  const askedTwice = gate();
  const world = await serveWorld(
    [
      async () => {
        asked++;
        (asked === 1 ? askedOnce : askedTwice).open();
        await answer.promise;
        return { text: "the answer after the restart" };
      },
    ],
    { onExhausted: "repeat-last" },
  );
  cleanups.push(() => world.close());
  world.ws.writeConfig({
    mcpServers: { rec: world.ws.recordingServer() },
    capabilities: { tasks: true, ...(checkpoint ? { checkpoint: true } : {}) },
    ...(checkpoint
      ? {
          durability: {
            checkpoint: {
              store: { command: process.execPath, args: [CLI_MAIN, "store", "--dir", join(world.ws.dir, "store")] },
              identity: "srv-0",
              debounce: "20ms",
            },
          },
        }
      : {}),
  });
  const tokens = join(world.ws.dir, "tokens.txt");
  writeFileSync(tokens, `${ALICE}\n${BOB}\n`);
  const start = () =>
    startServe(["--http", "127.0.0.1:0", "--config", world.config, "--auth-tokens", tokens, "--grace", "2s"], {
      env: world.env,
      cwd: world.ws.dir,
    });

  const first = await start();
  const alice = await connect(first.url, ALICE);
  const created = await alice.request(
    { method: "tools/call", params: { name: "agent.run", arguments: { instruction: "slow work" }, task: {} } },
    CreateTaskResultSchema,
  );
  const taskId = created.task.taskId;
  // Mid-run: the model was asked; with the checkpoint, the task is written.
  await askedOnce.promise;
  if (checkpoint) await first.waitForEvent((e) => e.event === "checkpoint.written" && e.servedTasks === 1);
  const runId = (await first.waitForEvent((e) => typeof e.runId === "string")).runId as string;
  if (stop === "SIGKILL") await killTree(first);
  else await first.stop("SIGTERM");

  const restarted = await start();
  return { taskId, runId, restarted, answer, askedTwice, asked: () => asked };
}

test("killed with SIGKILL mid-task and restarted: with the checkpoint the task is re-run under its id, run id and owner; without, it is not found", async () => {
  const on = await scenario(true);
  await on.restarted.waitForEvent((e) => e.event === "checkpoint.served-tasks-restored" && e.tasks === 1);
  const alice = await connect(on.restarted.url, ALICE);
  const bob = await connect(on.restarted.url, BOB);
  await on.askedTwice.promise;
  expect((await alice.experimental.tasks.getTask(on.taskId)).status).toBe("working");
  expect((await alice.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([on.taskId]);
  await expect(bob.experimental.tasks.getTask(on.taskId)).rejects.toMatchObject({ code: -32602 });
  await expect(bob.experimental.tasks.getTaskResult(on.taskId, CallToolResultSchema)).rejects.toMatchObject({ code: -32602 });
  expect((await bob.experimental.tasks.listTasks()).tasks).toEqual([]);
  on.answer.open();
  const result = await alice.experimental.tasks.getTaskResult(on.taskId, CallToolResultSchema);
  expect(result.content[0]).toMatchObject({ type: "text", text: "the answer after the restart" });
  // The same run: the re-run carries the run id the work had before the kill.
  expect(on.runId).toBeString();
  expect((result.structuredContent as { runId?: string }).runId).toBe(on.runId.replace(/@[0-9a-f]+$/, ""));
  expect((await alice.experimental.tasks.getTask(on.taskId)).status).toBe("completed");
  expect(on.asked()).toBe(2);
  // Once ended, the task leaves the checkpoint.
  await on.restarted.waitForEvent((e) => e.event === "checkpoint.written" && e.servedTasks === undefined);
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await stopAllServe();

  const off = await scenario(false);
  const again = await connect(off.restarted.url, ALICE);
  await expect(again.experimental.tasks.getTask(off.taskId)).rejects.toMatchObject({ code: -32602 });
  await expect(again.experimental.tasks.getTaskResult(off.taskId, CallToolResultSchema)).rejects.toMatchObject({ code: -32602 });
  expect((await again.experimental.tasks.listTasks()).tasks).toEqual([]);
  off.answer.open();
}, 180_000);

test("stopped with SIGTERM mid-task (the grace runs out): with the checkpoint the task stays noted and is re-run after the restart", async () => {
  const on = await scenario(true, "SIGTERM");
  await on.restarted.waitForEvent((e) => e.event === "checkpoint.served-tasks-restored" && e.tasks === 1);
  const alice = await connect(on.restarted.url, ALICE);
  await on.askedTwice.promise;
  expect((await alice.experimental.tasks.getTask(on.taskId)).status).toBe("working");
  on.answer.open();
  const result = await alice.experimental.tasks.getTaskResult(on.taskId, CallToolResultSchema);
  expect(result.content[0]).toMatchObject({ type: "text", text: "the answer after the restart" });
  expect((result.structuredContent as { runId?: string }).runId).toBe(on.runId.replace(/@[0-9a-f]+$/, ""));
}, 120_000);
