/**
 * Remote task handles in the checkpoint: a reactive `agentd run` (the client, checkpoint on) delegates its
 * run's work to a real `agentd serve --http` (the remote, tasks on, `agent.run` task-required), so the call
 * is a task the client polls. The client is killed with SIGKILL mid-poll and restarted on the same config.
 * Reconciliation re-runs the interrupted run under the same run id; its model asks for the same call:
 * - with the checkpoint, the client re-attaches to the remote task (`tasks/get` → `tasks/result`): the
 *   remote's work ran once (its model was asked once);
 * - without it, the call is made again: the remote's work ran twice.
 * Both ways the run ends ok with the remote's answer.
 */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { gate, serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";
import { startAgentd, stopAll } from "./__fixtures__/agentd-process.ts";
import { instructionOf, modelEnv, toolLike } from "./__fixtures__/scripts.ts";

const FILE_SERVER = resolve(import.meta.dir, "__fixtures__/file-resource-server.ts");
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await stopAll();
  await stopAllServe();
  for (const c of cleanups.splice(0).reverse()) await c();
}, 30_000);

async function scenario(checkpoint: boolean) {
  // The remote: each of its agent.run runs asks its model once; the answer waits until the test opens it.
  const answer = gate();
  const asked = gate();
  let remoteRuns = 0;
  const remote = await serveWorld(
    [
      async () => {
        remoteRuns++;
        asked.open();
        await answer.promise;
        return { text: "remote answer" };
      },
    ],
    { onExhausted: "repeat-last" },
  );
  cleanups.push(() => remote.close());
  remote.ws.writeConfig({
    mcpServers: { rec: remote.ws.recordingServer() },
    capabilities: { tasks: true },
    serve: { taskSupport: { "agent.run": "required" } },
  });
  const serve = await startServe(["--http", "127.0.0.1:0", "--config", remote.config, "--grace", "2s"], {
    env: remote.env,
    cwd: remote.ws.dir,
  });

  const ws = new CliWorkspace();
  cleanups.push(() => ws.cleanup());
  const work = join(ws.dir, "work.txt");
  writeFileSync(work, "job 1");
  const gateway: FakeGateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [
      (req) => {
        if (req.lastToolResult !== undefined) return { text: `delegated: ${req.lastToolResult}` };
        return { toolCalls: [{ name: toolLike(req, "agent_run"), arguments: { instruction: `do ${instructionOf(req)}` } }] };
      },
    ],
  });
  cleanups.push(() => gateway.close());
  const config = join(ws.dir, "agentd.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { flat: { command: process.execPath, args: [FILE_SERVER, work] }, peer: { url: serve.url.href } },
      capabilities: { tasks: true, ...(checkpoint ? { checkpoint: true } : {}) },
      triggers: {
        subscriptions: [{ server: "flat", uri: "file-watch://state", instruction: "Work: {{resource.text}}", pollInterval: "150ms" }],
      },
      ...(checkpoint
        ? {
            durability: {
              checkpoint: {
                store: { command: process.execPath, args: [CLI_MAIN, "store", "--dir", join(ws.dir, "store")] },
                identity: "pod-0",
                debounce: "20ms",
              },
            },
          }
        : {}),
    }),
  );
  const start = () => startAgentd(["run", "--mode", "reactive", "--config", config, "--json"], { cwd: ws.dir, env: modelEnv(gateway) });

  const first = start();
  // Mid-poll: the remote's run has started (its model was asked), and with the checkpoint the task is written.
  await first.waitFor("tool.call.start", 1, (e) => String(e.name).endsWith("agent_run"));
  if (checkpoint) await first.waitFor("checkpoint.written", 1, (e) => e.tasks === 1);
  await asked.promise;
  first.descendants();
  await first.kill();

  const restarted = start();
  if (checkpoint) await restarted.waitFor("mcp.task_reattached", 1);
  else await restarted.waitFor("tool.call.start", 1, (e) => String(e.name).endsWith("agent_run"));
  answer.open();
  const ends = await restarted.waitFor("trigger.run-end", 1);
  // The run ended after its tool call was answered: any duplicate remote run had asked its model by then.
  const runId = first.named("tool.call.start")[0]?.runId as string;
  return { runId, restarted, end: ends[0]!, remoteRuns: () => remoteRuns };
}

test("killed mid-poll of a remote task and restarted: with the checkpoint the client re-attaches (the remote work ran once); without, it calls again", async () => {
  const withCheckpoint = await scenario(true);
  expect(withCheckpoint.end).toMatchObject({ status: "ok" });
  const firstRunId = withCheckpoint.runId;
  expect(firstRunId).toBeString();
  expect(withCheckpoint.end.runId).toBe(firstRunId);
  expect(withCheckpoint.restarted.named("checkpoint.restored")[0]).toMatchObject({ found: true, tasks: 1, interrupted: [firstRunId] });
  expect(withCheckpoint.restarted.named("mcp.task_reattached")[0]).toMatchObject({ runId: firstRunId });
  expect(withCheckpoint.remoteRuns()).toBe(1);
  await stopAll();
  await stopAllServe();

  const without = await scenario(false);
  expect(without.end).toMatchObject({ status: "ok" });
  expect(without.end.runId).toBe(without.runId);
  expect(without.restarted.named("mcp.task_reattached")).toEqual([]);
  expect(without.remoteRuns()).toBe(2);
}, 180_000);
