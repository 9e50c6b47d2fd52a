/**
 * What one principal starts another cannot see or reuse: the served agent behind the Streamable HTTP server
 * with bearer tokens A, B and an operator's token, over real HTTP on 127.0.0.1.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createStreamableHttpServer, type StreamableHttpServer } from "../transport/http-server/index.ts";
import { call, openSession, post, request, SseReader, type RawSession } from "@agentd/test-support/raw-mcp-http";
import { createServedMcp, type ServedRunner } from "./served-mcp.ts";

const A = "token-a-0123456789abcdef";
const B = "token-b-0123456789abcdef";
const OPS = "token-ops-0123456789abcdef";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A runner that records the run ids it is handed and answers with the instruction. */
function recordingRunner() {
  const runIds: string[] = [];
  const runner: ServedRunner = {
    async run(input, { runId }) {
      runIds.push(runId!);
      return {
        text: `answer to ${input}`,
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        turns: 1,
        runId: runId!,
        stopReason: "final",
        toolCalls: 0,
      };
    },
  };
  return { runner, runIds };
}

async function serve(operators: string[] = []) {
  const { runner, runIds } = recordingRunner();
  const self = createServedMcp({ runner, operators });
  const server = await createStreamableHttpServer({
    auth: {
      bearerTokens: [
        { token: A, name: "alice" },
        { token: B, name: "bob" },
        { token: OPS, name: "ops", role: "operator" },
      ],
    },
    onsession: (t) => self.server.connect(t).then(() => {}),
  });
  servers.push(server);
  return { url: server.url, runIds };
}

const run = (url: URL, s: RawSession, id: number, instruction: string, runId: string) =>
  call(url, s, id, "tools/call", { name: "agent.run", arguments: { instruction, runId } }).then((r) => r.response.result);
const read = (url: URL, s: RawSession, id: number, uri: string) => call(url, s, id, "resources/read", { uri }).then((r) => r.response);
const json = (response: Record<string, any>) => JSON.parse(response.result.contents[0].text);

describe("runs are scoped to the principal that started them", () => {
  test("B neither lists, reads nor reuses A's run; the same run id is B's own run", async () => {
    const { url, runIds } = await serve();
    const a = await openSession(url, bearer(A));
    const b = await openSession(url, bearer(B));
    expect((await run(url, a, 1, "A's secret task", "job-1")).content[0].text).toBe("answer to A's secret task");

    const status = json(await read(url, b, 2, "agent://status"));
    expect(status).toMatchObject({ running: [], runsStarted: 0, runsSucceeded: 0 });
    expect(JSON.stringify(status)).not.toContain("job-1");
    const record = await read(url, b, 3, "agent://runs/job-1");
    expect(record.error?.message).toContain("no run job-1");
    expect(JSON.stringify(record)).not.toContain("secret");

    const mine = await run(url, b, 4, "B's task", "job-1");
    expect(mine.content[0].text).toBe("answer to B's task");
    expect(mine.structuredContent.stopReason).not.toBe("already done");
    // A's repeat is still A's own "already done"; the agent was handed distinct run ids downstream.
    expect((await run(url, a, 5, "A's secret task", "job-1")).structuredContent.stopReason).toBe("already done");
    expect(runIds).toHaveLength(2);
    expect(new Set(runIds).size).toBe(2);
    expect(json(await read(url, a, 6, "agent://runs/job-1")).result.text).toBe("answer to A's secret task");
  });

  test("an operator (by token role, or by principal id) sees every principal's runs; a user does not", async () => {
    const { url } = await serve(["bearer:bob"]);
    const a = await openSession(url, bearer(A));
    const ops = await openSession(url, bearer(OPS));
    const bobAsOperator = await openSession(url, bearer(B));
    await run(url, a, 1, "A's task", "job-7");
    for (const s of [ops, bobAsOperator]) {
      const status = json(await read(url, s, 2, "agent://status"));
      expect(status.runsSucceeded).toBe(1);
      expect(status.principals).toMatchObject({ "bearer:alice": { runsStarted: 1 } });
      expect(json(await read(url, s, 3, "agent://runs/job-7"))).toMatchObject({
        principal: "bearer:alice",
        result: { text: "answer to A's task" },
      });
    }
    expect(json(await read(url, a, 4, "agent://status")).principals).toBeUndefined();
  });

  test("a subscriber hears of its own runs only", async () => {
    const { url } = await serve();
    const a = await openSession(url, bearer(A));
    const b = await openSession(url, bearer(B));
    const streams: SseReader[] = [];
    for (const s of [a, b]) {
      await call(url, s, 10, "resources/subscribe", { uri: "agent://status" });
      const reader = new SseReader(await fetch(url, { headers: { ...s.headers, accept: "text/event-stream" } }));
      await reader.next();
      streams.push(reader);
    }
    await run(url, a, 11, "A's task", "job-9");
    const heard = await streams[0]!.nextMessage();
    expect(heard?.message).toMatchObject({ method: "notifications/resources/updated", params: { uri: "agent://status" } });
    // B's own run: the first update B's stream carries is about it, none of A's came before.
    await run(url, b, 12, "B's task", "job-10");
    const bHeard = await streams[1]!.nextMessage();
    expect(bHeard?.message.method).toBe("notifications/resources/updated");
    const bStatus = json(await read(url, b, 13, "agent://status"));
    expect(bStatus.runsStarted).toBe(1);
    await Promise.all(streams.map((r) => r.cancel()));
  });
});

describe("server notifications telemetry is the whole process's", () => {
  test("it is mirrored to operators, not to other principals", async () => {
    const { runner } = recordingRunner();
    const self = createServedMcp({ runner, capabilities: { serverNotifications: true } });
    const server = await createStreamableHttpServer({
      auth: {
        bearerTokens: [
          { token: A, name: "alice" },
          { token: OPS, name: "ops", role: "operator" },
        ],
      },
      onsession: (t) => self.server.connect(t).then(() => {}),
    });
    servers.push(server);
    const url = server.url;
    const streams: SseReader[] = [];
    const sessions: RawSession[] = [];
    for (const token of [A, OPS]) {
      const s = await openSession(url, bearer(token));
      await call(url, s, 1, "resources/subscribe", { uri: "agent://status" });
      const reader = new SseReader(await fetch(url, { headers: { ...s.headers, accept: "text/event-stream" } }));
      await reader.next();
      streams.push(reader);
      sessions.push(s);
    }
    self.mirrorLog({ ts: new Date().toISOString(), level: "info", event: "tool.call.start", runId: "someone-else's" });
    // Then each runs something of its own: on one stream, order is kept, so what came first is telling.
    await run(url, sessions[0]!, 2, "alice's task", "a-1");
    expect((await streams[0]!.nextMessage())?.message.method).toBe("notifications/resources/updated");
    expect((await streams[1]!.nextMessage())?.message).toMatchObject({ method: "notifications/message", params: { logger: "agentd" } });
    await Promise.all(streams.map((r) => r.cancel()));
  });
});

describe("the run history is bounded", () => {
  test("a run that left the history reads as expired, and its id is not run again", async () => {
    const { runner, runIds } = recordingRunner();
    const self = createServedMcp({ runner, runHistory: { maxRuns: 2 } });
    const server = await createStreamableHttpServer({ onsession: (t) => self.server.connect(t).then(() => {}) });
    servers.push(server);
    const s = await openSession(server.url);
    for (let i = 1; i <= 3; i++) await run(server.url, s, i, `task ${i}`, `r${i}`);
    const gone = await read(server.url, s, 4, "agent://runs/r1");
    expect(gone.error?.message).toContain("run r1 finished and has expired from the run history (each caller's last 2 finished runs");
    const again = await run(server.url, s, 5, "task 1", "r1");
    expect(again.isError).toBe(true);
    expect(again.content[0].text).toContain("expired");
    expect(runIds).toEqual(["r1", "r2", "r3"]);
    expect((await post(server.url, request(6, "ping"), s.headers)).status).toBe(200);
  });
});
