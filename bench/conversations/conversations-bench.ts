/**
 * What continuing a conversation adds to a run: the time to find it, cut it to its bound and hand it to the
 * loop (load), and to write it back after the run's turn (save: one compare-and-set), p50/p99 in ms, for
 * conversations of 10, 50 and 200 turns (a turn: a request, a tool call, its ~500-byte result, a ~300-byte
 * answer). Stores: the local state directory (the default without a configured store: a directory backend
 * opened per operation), a configured `agentd store` on a directory (its MCP server as a stdio child, as
 * agentd reaches it), and the same on Redis (when `redis-server` is installed). Target: ≤ 5 ms p50 for 50
 * turns on a directory store.
 *
 *   bun bench/conversations/conversations-bench.ts [--quick] [--readme]
 *
 * Prints one JSON object; `--readme` also writes its table into bench/README.md between the
 * `bench:conversations` markers, with the date, the samples and the machine's load average while it ran.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { McpClient } from "@agentd/sdk/mcp";
import { StoreClient } from "@agentd/sdk/store";
import { StdioChildTransport } from "@agentd/sdk/transport";
import { redisServerPath, startRedis } from "@agentd/test-support/redis-server";
import { percentile, sig } from "../lib/stats.ts";
import { nullLogger } from "../../packages/sdk/src/log.ts";
import type { ModelMessage } from "../../packages/sdk/src/model/language-model.ts";
import type { Conversation } from "../../packages/sdk/src/agent/conversations/conversation.ts";
import { beginConversation } from "../../packages/sdk/src/agent/conversations/conversation-run.ts";
import { DocumentConversationStore, type DocumentStore } from "../../packages/sdk/src/agent/conversations/document-conversations.ts";
import { LocalDocuments } from "../../packages/sdk/src/agent/conversations/local-documents.ts";

const ENTRY = resolve(import.meta.dir, "../../packages/sdk/src/store/__fixtures__/store-entry.ts");
const TURNS = [10, 50, 200] as const;

/** Figures of one store at one length (ms). */
export interface ConversationFigures {
  turns: number;
  bytes: number;
  loadP50: number;
  loadP99: number;
  saveP50: number;
  saveP99: number;
  /** Load and save together: what continuing adds to a run. */
  totalP50: number;
}

function turn(n: number): ModelMessage[] {
  return [
    { role: "user", content: `request ${n}: look at the queue and tell me what changed` },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: `call-${n}`, toolName: "queue__list", input: { since: n } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: `call-${n}`, toolName: "queue__list", output: "item ".repeat(100) }] },
    { role: "assistant", content: [{ type: "text", text: "summary ".repeat(37) }] },
  ];
}

const seed = (turns: number): Conversation => ({
  id: `bench-${turns}`,
  owner: "local",
  title: "bench",
  messages: Array.from({ length: turns }, (_, i) => turn(i)).flat(),
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
  runs: [],
  tokens: { count: turns * 200, messages: turns * 4 },
  dropped: 0,
});

async function measure(documents: DocumentStore, turns: number, samples: number): Promise<ConversationFigures> {
  const store = new DocumentConversationStore(async () => documents);
  const options = { store, maxTokens: 10_000_000 };
  const base = seed(turns);
  await store.save(base, (await store.get(base.id, "local"))?.version ?? 0);
  const load: number[] = [];
  const save: number[] = [];
  for (let i = 0; i < samples + 3; i++) {
    const t0 = performance.now();
    const run = await beginConversation(options, base.id, { runId: `run-${i}`, input: "next", owner: "local", logger: nullLogger });
    const t1 = performance.now();
    run.onMessages([...run.history, ...turn(turns)]);
    await run.end();
    const t2 = performance.now();
    if (i >= 3) {
      load.push(t1 - t0);
      save.push(t2 - t1);
    }
    // Back to its length, untimed, so every sample continues the same conversation.
    await store.save(base, (await store.get(base.id, "local"))!.version);
  }
  const total = load.map((l, i) => l + (save[i] ?? 0));
  return {
    turns,
    bytes: Buffer.byteLength(JSON.stringify(base)),
    loadP50: sig(percentile(load, 50)),
    loadP99: sig(percentile(load, 99)),
    saveP50: sig(percentile(save, 50)),
    saveP99: sig(percentile(save, 99)),
    totalP50: sig(percentile(total, 50)),
  };
}

async function overStore(args: string[], turns: number, samples: number): Promise<ConversationFigures> {
  const mcp = new McpClient({ name: "conversations-bench", version: "0" });
  await mcp.connect(new StdioChildTransport({ name: "store", command: process.execPath, args: [ENTRY, ...args] }));
  try {
    return await measure(new StoreClient(mcp), turns, samples);
  } finally {
    await mcp.close();
  }
}

/** Run the benchmark with `samples` per figure. */
export async function runConversationsBench(samples: number): Promise<Record<string, ConversationFigures[]>> {
  const dir = mkdtempSync(join(tmpdir(), "agentd-conv-bench-"));
  const out: Record<string, ConversationFigures[]> = { local: [], directory: [] };
  try {
    for (const t of TURNS) out.local!.push(await measure(new LocalDocuments(join(dir, "local")), t, samples));
    for (const t of TURNS) out.directory!.push(await overStore(["--dir", join(dir, `store-${t}`)], t, samples));
    if (redisServerPath) {
      const redis = await startRedis();
      try {
        out.redis = [];
        for (const t of TURNS) out.redis.push(await overStore(["--redis", redis.url, `bench${t}:`], t, samples));
      } finally {
        await redis.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

const STORES: Record<string, string> = {
  local: "local state directory",
  directory: "`agentd store --dir` (MCP, stdio)",
  redis: "`agentd store --redis` (MCP, stdio)",
};

/** The README table of `results`: one row a store, each cell the 10 / 50 / 200-turn figures. */
export function renderConversationsTable(results: Record<string, ConversationFigures[]>): string {
  const cells = (figures: ConversationFigures[], pick: (f: ConversationFigures) => number) => figures.map(pick).join(" / ");
  const rows = Object.entries(results).map(([store, f]) =>
    [
      STORES[store] ?? store,
      cells(f, (x) => x.turns),
      cells(f, (x) => x.loadP50),
      cells(f, (x) => x.saveP50),
      cells(f, (x) => x.totalP50),
      cells(f, (x) => x.saveP99),
    ].join(" | "),
  );
  return [
    "| store | turns | load p50 | save p50 | load + save p50 | save p99 |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r} |`),
  ].join("\n");
}

const START =
  "<!-- bench:conversations:start (generated by bun bench/conversations/conversations-bench.ts --readme; edits inside are overwritten) -->";
const END = "<!-- bench:conversations:end -->";

if (import.meta.main) {
  const samples = process.argv.includes("--quick") ? 30 : 200;
  const before = loadavg()[0]!;
  const results = await runConversationsBench(samples);
  console.log(JSON.stringify(results));
  if (process.argv.includes("--readme")) {
    const path = new URL("../README.md", import.meta.url);
    const readme = readFileSync(path, "utf8");
    const begin = readme.indexOf(START);
    const end = readme.indexOf(END);
    if (begin < 0 || end < begin) throw new Error("bench/README.md has no bench:conversations markers");
    const when = `${new Date().toISOString().slice(0, 10)}, ${samples} samples, load average ${sig(before)} at the start and ${sig(loadavg()[0]!)} at the end:`;
    writeFileSync(path, `${readme.slice(0, begin + START.length)}\n${when}\n\n${renderConversationsTable(results)}\n${readme.slice(end)}`);
  }
}
