/**
 * Served runs over a real store (the MCP store server on the directory backend, reached through an MCP
 * client): a finished run id answers "already done" within its retention, and its claim and answer are
 * swept after it (the run id then runs again); a result the store refuses to keep is one warning line, and
 * the caller of `agent.run` still gets its answer.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectStore } from "@agentd/test-support/connect-store";
import { createLogger, type LogRecord, type Logger } from "../../log.ts";
import { McpClient } from "../../mcp/client/client.ts";
import { createServedMcp, type ServedRunner } from "../../serve/served-mcp.ts";
import { DirectoryBackend } from "../../store/directory-backend.ts";
import type { StoreClient } from "../../store/store-client.ts";
import { MemoryTransport } from "../../transport/memory.ts";
import { createServedRuns, type ServedRunsStore } from "./served-runs-from-config.ts";

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function openStore(): Promise<StoreClient> {
  const backend = new DirectoryBackend(mkdtempSync(join(tmpdir(), "agentd-served-runs-")));
  cleanup.push(() => rmSync(backend.dir, { recursive: true, force: true }));
  cleanup.push(() => backend.close());
  const c = await connectStore(backend);
  cleanup.push(c.close);
  return c.store;
}

function recordingLogger(): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  return { logger: createLogger((r) => records.push(r), { level: "debug" }), records };
}

const live = new AbortController().signal;
const HOUR = 3_600_000;

test("a finished served run is 'already done' within its retention; after it, its claim and answer are swept and the run id runs again", async () => {
  const store = await openStore();
  let clock = 1_000_000;
  const { logger, records } = recordingLogger();
  const served = createServedRuns({ store: async () => store, holder: "pod-a", retentionMs: HOUR, logger, now: () => clock });
  cleanup.push(() => served.close());

  const first = await served.begin("order-17", live);
  expect(first.status).toBe("run");
  if (first.status === "run") await first.finish({ stopReason: "final", text: "shipped" });
  const keys = async () => (await store.list("")).map((k) => k.key);
  expect((await keys()).length).toBe(2); // the claim and the answer

  // Within the retention (a minute before its end): a retry on another replica gets the answer, no run.
  clock += HOUR - 60_000;
  const other = createServedRuns({ store: async () => store, holder: "pod-b", retentionMs: HOUR, logger, now: () => clock });
  cleanup.push(() => other.close());
  expect(await other.begin("order-17", live)).toEqual({ status: "done", answer: { stopReason: "final", text: "shipped" } });
  expect(await other.sweep()).toEqual({ checked: 2, deleted: 0 });

  // Past it: a sweep deletes both, and the run id is run again.
  clock += 60_000;
  expect(await other.sweep()).toEqual({ checked: 2, deleted: 2 });
  expect(await keys()).toEqual([]);
  expect(records.find((r) => r.event === "store.swept" && r.level === "info")).toMatchObject({ swept: "served-runs", deleted: 2 });
  const again = await other.begin("order-17", live);
  expect(again.status).toBe("run");
  if (again.status === "run") await again.finish(undefined);
});

test("a done claim past its retention counts as absent even before a sweep: the run id runs again (not a takeover)", async () => {
  const store = await openStore();
  let clock = 5_000_000;
  const { logger } = recordingLogger();
  const served = createServedRuns({ store: async () => store, holder: "pod-a", retentionMs: 10_000, logger, now: () => clock });
  cleanup.push(() => served.close());
  const first = await served.begin("job-1", live);
  if (first.status === "run") await first.finish({ stopReason: "final", text: "one" });
  clock += 10_000;
  const second = await served.begin("job-1", live);
  expect(second).toMatchObject({ status: "run", takenOver: false });
  if (second.status === "run") await second.finish({ stopReason: "final", text: "two" });
  expect(await served.begin("job-1", live)).toEqual({ status: "done", answer: { stopReason: "final", text: "two" } });
});

test("a result the store refuses to keep: one warning line without secrets, the caller still gets its answer, a retry is told it was done", async () => {
  const store = await openStore();
  const secret = "Bearer store-token-0123456789";
  // The store accepts claims but refuses the result record (a full disk, a read-only replica, a quota).
  const refusing: ServedRunsStore = {
    get: (k) => store.get(k),
    compareAndSet: (k, v, x) => store.compareAndSet(k, v, x),
    delete: (k, v) => store.delete(k, v),
    list: (p) => store.list(p),
    put: async (k, v) => {
      if (k.startsWith("served/")) throw new Error(`the store could not write "${k}": quota exceeded (sent ${secret})`);
      return store.put(k, v);
    },
  };
  const { logger, records } = recordingLogger();
  const servedRuns = createServedRuns({ store: async () => refusing, holder: "pod-a", logger });
  cleanup.push(() => servedRuns.close());
  let runs = 0;
  const runner: ServedRunner = {
    run: async (input, { runId }) => {
      runs++;
      const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
      return { text: `done: ${input}`, usage, turns: 1, runId: runId!, stopReason: "final", toolCalls: 0 };
    },
  };
  const self = createServedMcp({ runner, servedRuns });
  const [a, b] = MemoryTransport.createPair();
  await self.server.connect(b);
  const client = new McpClient({ name: "test", version: "1" });
  await client.connect(a);
  cleanup.push(() => client.close());

  const answer = await client.callTool("agent.run", { instruction: "ship it", runId: "order-9" });
  expect(answer.isError).toBeFalsy();
  expect(answer.content[0]).toEqual({ type: "text", text: "done: ship it" });
  const warnings = records.filter((r) => r.event === "served-run.record-failed");
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ level: "warn", holder: "pod-a" });
  expect(String(warnings[0]!.error)).toContain("quota exceeded");
  expect(JSON.stringify(warnings[0])).not.toContain("store-token-0123456789");
  // The claim was still marked done: another replica's caller is told so, and nothing runs again.
  const other = createServedRuns({ store: async () => refusing, holder: "pod-b", logger });
  cleanup.push(() => other.close());
  // A local caller's run id is its own (serve/principal.ts, scopedRunId).
  expect(await other.begin("order-9", live)).toEqual({ status: "done" });
  expect(runs).toBe(1);
});
