/**
 * Served runs that wait durably for a decision, over real processes: `agentd serve --http` with user and
 * operator tokens, the fake gateway's model calling `fs/delete_file` of the testkit's fake MCP server (its
 * record file, shared by every process's server, is the server's own account of what reached it), a rule
 * asking for it. The served run suspends — saved, its question posted to the approval desk — so:
 *
 * - `kill -9` of the serving process while the run waits, then a new process on the same state directory, then
 *   the operator's decision (the `agent.decide` tool over MCP): the tool is called exactly once with the
 *   approved arguments, the run finishes, and it is in the new process's run history;
 * - two replicas on one Redis store (`durability.store`: `agentd store --redis`): the run started on one, the
 *   decision given to the other; the run is continued once, by whichever replica claimed it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand, type RecordedRequest } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const ALICE = "alice-waiting-token-0123456789";
const OPS = "ops-waiting-token-0123456789";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
let redis: RunningRedis | undefined;
afterEach(async () => {
  await stopAllServe();
  await gateway?.close();
  fake?.dispose();
  await redis?.stop();
  ws?.cleanup();
  ws = gateway = fake = redis = undefined;
}, 30_000);

const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;
const serverCalls = () =>
  (fake?.recordedRequests() ?? [])
    .filter((r) => r.method === "tools/call")
    .map((r) => `${(r.params as { name: string }).name} ${JSON.stringify((r.params as { arguments?: unknown }).arguments)}`);

/** A workspace whose model deletes one path (the rule asks), and how to serve it. */
async function world(extra: Record<string, unknown> = {}, options: { pathOfRun?: boolean } = {}) {
  ws = new CliWorkspace();
  fake = fakeServerCommand({ tools: [{ name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } }] });
  gateway = await startFakeGateway({
    dialect: "openai",
    script: options.pathOfRun
      ? // Each run deletes the path its instruction names, then answers: runs may interleave.
        [
          (req) =>
            req.lastToolResult
              ? { text: `tool said: ${req.lastToolResult}` }
              : { toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: /\/srv\/[a-z]+/.exec(req.bodyText)![0] } }] },
        ]
      : [
          (req) => ({ toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/old" } }] }),
          (req) => ({ text: `tool said: ${req.lastToolResult}` }),
        ],
    ...(options.pathOfRun ? { onExhausted: "repeat-last" as const } : {}),
  });
  ws.writeConfig({ mcpServers: { fs: fake.config }, approvals: { rules: [{ tool: "fs/delete_*", decision: "ask" }] }, ...extra });
  const users = join(ws.dir, "tokens.txt");
  const ops = join(ws.dir, "operators.txt");
  writeFileSync(users, `${ALICE}\n`);
  writeFileSync(ops, `${OPS}\n`);
  const env = {
    AGENT_INTELLIGENCE: gateway.url,
    AGENT_DIALECT: "openai",
    AGENT_MODEL: "m",
    AGENT_API_KEY: "k",
    XDG_STATE_HOME: join(ws.dir, "state"),
  };
  const dir = ws.dir;
  const serve = (name: string) =>
    startServe(["--http", "127.0.0.1:0", "--auth-tokens", users, "--operator-tokens", ops, "--grace", "1s"], {
      env: { ...env, POD_NAME: name },
      cwd: dir,
    });
  return { serve };
}

/** Alice's `agent.run` (its answer comes once the run ends), and the question it waits on once it is saved. */
async function aliceRuns(serve: ServeProcess) {
  const alice = await openSession(serve.url, bearer(ALICE));
  const answer = call(serve.url, alice, 1, "tools/call", { name: "agent.run", arguments: { instruction: "clean up", runId: "job-1" } });
  answer.catch(() => {});
  const asked = await serve.waitForEvent((e) => e.event === "approval.requested");
  // Saved: the run ended its first part waiting, holding nothing open.
  await serve.waitForEvent((e) => e.event === "run.end" && e.stopReason === "waiting");
  return { answer, id: asked.requestId as string };
}

async function decide(serve: ServeProcess, id: string, rpcId = 2) {
  const ops = await openSession(serve.url, bearer(OPS));
  const r = (await call(serve.url, ops, rpcId, "tools/call", { name: "agent.decide", arguments: { approvalId: id, decision: "approve" } }))
    .response as Record<string, any>;
  expect(r.result?.isError).toBeFalsy();
}

const finished = (e: Record<string, any>) => e.event === "run.end" && e.stopReason === "final";

describe("a served run waits durably", () => {
  test("kill -9 while it waits; a new process, the operator's decision over MCP: the tool is called once and the run finishes", async () => {
    const { serve } = await world();
    const first = await serve("first");
    const { id } = await aliceRuns(first);
    expect(serverCalls()).toEqual([]);
    await first.stop("SIGKILL", 0);

    const second = await serve("second");
    await decide(second, id);
    // The run's end, then its record in the history (written once the resumed run returned).
    await second.waitForEvent(finished);
    await second.waitForEvent((e) => e.event === "approvals.run-resumed");
    expect(second.events().filter((e) => e.event === "run.resumed")).toHaveLength(1);
    expect(serverCalls()).toEqual(['delete_file {"path":"/srv/old"}']);
    // In the new process's run history, finished, with the question and its decision.
    const alice = await openSession(second.url, bearer(ALICE));
    const read = (await call(second.url, alice, 3, "resources/read", { uri: "agent://runs/job-1" })).response as Record<string, any>;
    const record = JSON.parse(read.result.contents[0].text);
    expect(record).toMatchObject({ runId: "job-1", status: "succeeded" });
  }, 120_000);

  test.skipIf(!redisServerPath)(
    "two replicas on one Redis store: the decision given to one, the run continued once",
    async () => {
      redis = await startRedis();
      const { serve } = await world({
        durability: { store: { command: process.execPath, args: [CLI_MAIN, "store", "--redis", redis.url] } },
      });
      const [a, b] = await Promise.all([serve("replica-a"), serve("replica-b")]);
      const { answer, id } = await aliceRuns(b);
      await decide(a, id);
      await Promise.race([a.waitForEvent(finished), b.waitForEvent(finished)]);
      expect(serverCalls()).toEqual(['delete_file {"path":"/srv/old"}']);
      const resumed = [...a.events(), ...b.events()].filter((e) => e.event === "run.resumed");
      expect(resumed).toHaveLength(1);
      // Alice, still connected to b: the final answer, whichever replica resumed it (from the fleet's history
      // when it was a).
      const text = ((await answer).response as Record<string, any>).result.content[0].text as string;
      expect(text).toContain("deleted /srv/old");
    },
    120_000,
  );

  test.skipIf(!redisServerPath)(
    "two replicas on Redis: two decisions in quick succession from one, both runs resumed by the other, which holds their callers",
    async () => {
      redis = await startRedis();
      const { serve } = await world(
        { durability: { store: { command: process.execPath, args: [CLI_MAIN, "store", "--redis", redis.url] } } },
        { pathOfRun: true },
      );
      const [a, b] = await Promise.all([serve("replica-a"), serve("replica-b")]);
      const alice = await openSession(b.url, bearer(ALICE));
      const answers = ["a", "b"].map((p, i) =>
        call(b.url, alice, 10 + i, "tools/call", {
          name: "agent.run",
          arguments: { instruction: `clean up /srv/${p}`, runId: `job-${p}` },
        }),
      );
      for (const answer of answers) answer.catch(() => {});
      const waiting = (runId: string) => (e: Record<string, any>) =>
        e.event === "run.end" && e.stopReason === "waiting" && String(e.runId).startsWith(`${runId}@`);
      await Promise.all([b.waitForEvent(waiting("job-a")), b.waitForEvent(waiting("job-b"))]);
      const ids = b
        .events()
        .filter((e) => e.event === "approval.requested")
        .map((e) => e.requestId as string);
      expect(ids).toHaveLength(2);
      // Both decided at once on replica a: the bell rings twice in quick succession.
      await Promise.all(ids.map((id, i) => decide(a, id, 20 + i)));
      const texts = await Promise.all(
        answers.map(async (answer) => ((await answer).response as Record<string, any>).result.content[0].text),
      );
      // b heard both decisions and resumed both runs at once (a leaves them to b, which holds their callers).
      expect(texts[0]).toContain("deleted /srv/a");
      expect(texts[1]).toContain("deleted /srv/b");
      expect(a.events().filter((e) => e.event === "run.resumed")).toEqual([]);
      expect(b.events().filter((e) => e.event === "run.resumed")).toHaveLength(2);
      expect(serverCalls().sort()).toEqual(['delete_file {"path":"/srv/a"}', 'delete_file {"path":"/srv/b"}']);
    },
    120_000,
  );

  test.skipIf(!redisServerPath)(
    "two replicas on Redis: the other replica lists the run while it waits, and once resumed lists it finished, once",
    async () => {
      redis = await startRedis();
      const { serve } = await world({
        durability: { store: { command: process.execPath, args: [CLI_MAIN, "store", "--redis", redis.url] } },
      });
      const [a, b] = await Promise.all([serve("replica-a"), serve("replica-b")]);
      const { answer, id } = await aliceRuns(b);
      const aliceOnA = await openSession(a.url, bearer(ALICE));
      let rpc = 100;
      /** Alice's runs as replica a lists them, once `until` holds of them (the fleet's history is written in the background). */
      const listedOnA = async (until: (runs: Array<Record<string, any>>) => boolean) => {
        for (let tries = 0; ; tries++) {
          const read = (await call(a.url, aliceOnA, rpc++, "resources/read", { uri: "agent://runs" })).response as Record<string, any>;
          const runs = (JSON.parse(read.result.contents[0].text).runs as Array<Record<string, any>>).filter((r) =>
            r.runId.startsWith("job-1"),
          );
          if (until(runs) || tries === 100) return runs;
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      const whileWaiting = await listedOnA((runs) => runs.length > 0);
      expect(whileWaiting).toMatchObject([{ status: "waiting", waitingOn: ["fs/delete_file"] }]);
      await decide(a, id);
      expect(((await answer).response as Record<string, any>).result.content[0].text).toContain("deleted /srv/old");
      const after = await listedOnA((runs) => runs.some((r) => r.status === "succeeded"));
      expect(after.map((r) => r.status)).toEqual(["succeeded"]);
    },
    120_000,
  );
});
