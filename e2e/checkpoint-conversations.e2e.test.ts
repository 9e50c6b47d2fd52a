/**
 * The checkpoint's conversation tier (`durability.checkpoint.resumeConversations`), with a real reactive
 * `agentd run`, a real `agentd store --dir` and the testkit's fake gateway scripted for two tool calls.
 * agentd is killed with SIGKILL after the first tool's result was saved (the run waits on a slow tool),
 * then restarted; reconciliation re-runs the run under the same run id:
 * - tier on: the run resumes from the saved conversation — the gateway's first request after the restart
 *   carries the earlier turns, the first tool is not called again; the saved conversation is gone at the end;
 * - tier off (the checkpoint alone): the run starts over and calls the first tool again.
 * Both ways the run ends ok under the same run id.
 */
import { afterEach, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand, type RecordedRequest } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { startAgentd, stopAll } from "./__fixtures__/agentd-process.ts";
import { modelEnv, toolLike } from "./__fixtures__/scripts.ts";

const FILE_SERVER = resolve(import.meta.dir, "__fixtures__/file-resource-server.ts");
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await stopAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The name of the tool the last assistant turn called (undefined before any). */
const lastCalled = (req: RecordedRequest): string | undefined =>
  req.messages.filter((m) => m.role === "assistant" && m.toolCalls.length).at(-1)?.toolCalls[0]?.name;

async function scenario(resumeConversations: boolean) {
  const ws = new CliWorkspace();
  cleanups.push(() => ws.cleanup());
  const work = join(ws.dir, "work.txt");
  writeFileSync(work, "job 1");
  let slowStarted = false;
  const gateway: FakeGateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [
      (req) => {
        const last = lastCalled(req);
        if (last === undefined) return { toolCalls: [{ name: toolLike(req, "first"), arguments: { step: 1 } }] };
        if (last.endsWith("second")) return { text: "both steps done" };
        // After the first step: the first process hangs on the slow tool (it is killed meanwhile).
        if (!slowStarted) {
          slowStarted = true;
          return { toolCalls: [{ name: toolLike(req, "slow"), arguments: {} }] };
        }
        return { toolCalls: [{ name: toolLike(req, "second"), arguments: { step: 2 } }] };
      },
    ],
  });
  cleanups.push(() => gateway.close());
  const recorder: FakeServerCommand = fakeServerCommand({
    tools: [
      { name: "first", text: "first step done" },
      { name: "second", text: "second step done" },
      { name: "slow", delayMs: 600_000, text: "late" },
    ],
  });
  cleanups.push(() => recorder.dispose());
  const rec = { command: recorder.command, args: recorder.args.filter((a, i, all) => a !== "--control" && all[i - 1] !== "--control") };
  const storeDir = join(ws.dir, "store");
  const config = join(ws.dir, "agentd.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { flat: { command: process.execPath, args: [FILE_SERVER, work] }, rec },
      capabilities: { checkpoint: true },
      triggers: {
        subscriptions: [{ server: "flat", uri: "file-watch://state", instruction: "Work: {{resource.text}}", pollInterval: "150ms" }],
      },
      durability: {
        checkpoint: {
          store: { command: process.execPath, args: [CLI_MAIN, "store", "--dir", storeDir] },
          identity: "pod-0",
          debounce: "20ms",
          ...(resumeConversations ? { resumeConversations: { maxBytes: 65536, ttl: "10m" } } : {}),
        },
      },
    }),
  );
  const start = () => startAgentd(["run", "--mode", "reactive", "--config", config, "--json"], { cwd: ws.dir, env: modelEnv(gateway) });
  const calls = (name: string) => recorder.recordedRequests().filter((r) => r.method === "tools/call" && r.params.name === name);

  const first = start();
  await first.waitFor("tool.call.start", 1, (e) => String(e.name).endsWith("slow"));
  if (resumeConversations) await first.waitFor("conversation.saved", 1);
  const runId = first.named("tool.call.start")[0]?.runId as string;
  first.descendants();
  await first.kill();
  const beforeRestart = gateway.requests.length;

  const restarted = start();
  const [end] = await restarted.waitFor("trigger.run-end", 1);
  return {
    runId,
    end: end!,
    restarted,
    afterRestart: gateway.requests.slice(beforeRestart),
    firstCalls: calls("first").length,
    secondCalls: calls("second").length,
    storeDir,
  };
}

test("killed after the first of two tool calls and restarted: with the conversation tier the run resumes mid-conversation; without, it starts over", async () => {
  const on = await scenario(true);
  expect(on.end).toMatchObject({ status: "ok", runId: on.runId });
  expect(on.restarted.named("conversation.resumed")[0]).toMatchObject({ runId: on.runId });
  // The model saw the earlier turns: the first request after the restart already holds the first step's result.
  const resumed = on.afterRestart[0]!;
  expect(resumed.messages.some((m) => m.toolCalls.some((c) => c.name.endsWith("first")))).toBe(true);
  expect(resumed.messages.some((m) => m.toolResults.some((r) => JSON.stringify(r).includes("first step done")))).toBe(true);
  expect(on.firstCalls).toBe(1);
  expect(on.secondCalls).toBe(1);
  // The run ended: its saved conversation was deleted.
  await on.restarted.waitFor("checkpoint.written", 1, (e) => e.runs === 0);
  expect(readdirSync(on.storeDir).filter((f) => f.startsWith("conversations"))).toEqual([]);
  await stopAll();

  const off = await scenario(false);
  expect(off.end).toMatchObject({ status: "ok", runId: off.runId });
  expect(off.restarted.named("conversation.resumed")).toEqual([]);
  expect(off.afterRestart[0]!.messages.some((m) => m.toolResults.length > 0)).toBe(false);
  expect(off.firstCalls).toBe(2);
  expect(off.secondCalls).toBe(1);
}, 180_000);
