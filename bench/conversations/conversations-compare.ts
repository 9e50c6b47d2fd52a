/**
 * Two checkouts' conversation load + save, measured interleaved in one run: on a shared machine the load
 * moves between two runs more than a change does, so each sample of one tree is followed by one of the
 * other, on the same store kind and length, and each tree's p50 comes from samples taken under the same
 * load. Each tree's own modules are imported from its directory, and its own `agentd store` is its child.
 *
 *   bun bench/conversations/conversations-compare.ts OLD_CHECKOUT [NEW_CHECKOUT (default: this one)] [--samples N]
 *
 * Prints one JSON object: per store and length, p50 of load, save and both, for `old` and `new`, and the
 * load average before and after.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { redisServerPath, startRedis } from "@agentd/test-support/redis-server";
import { percentile, sig } from "../lib/stats.ts";

const TURNS = [10, 50, 200] as const;
type Message = Record<string, unknown>;

function turn(n: number): Message[] {
  return [
    { role: "user", content: `request ${n}: look at the queue and tell me what changed` },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: `call-${n}`, toolName: "queue__list", input: { since: n } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: `call-${n}`, toolName: "queue__list", output: "item ".repeat(100) }] },
    { role: "assistant", content: [{ type: "text", text: "summary ".repeat(37) }] },
  ];
}

/** One checkout's modules, imported from its own directory. */
async function treeAt(root: string) {
  const src = (p: string) => import(resolve(root, "packages/sdk/src", p));
  const [mcp, store, transport, log, run, docs, local] = await Promise.all([
    src("mcp/index.ts"),
    src("store/index.ts"),
    src("transport/index.ts"),
    src("log.ts"),
    src("agent/conversations/conversation-run.ts"),
    src("agent/conversations/document-conversations.ts"),
    src("agent/conversations/local-documents.ts"),
  ]);
  return { root, mcp, store, transport, log, run, docs, local };
}
type Tree = Awaited<ReturnType<typeof treeAt>>;

/** A conversation store of `tree` on `kind`, and how to let it go. */
async function storeOf(tree: Tree, kind: string, dir: string, redisUrl: string | undefined, tag: string) {
  if (kind === "local") return { documents: new tree.local.LocalDocuments(join(dir, `local-${tag}`)), close: async () => {} };
  const entry = resolve(tree.root, "packages/sdk/src/store/__fixtures__/store-entry.ts");
  const args = kind === "directory" ? ["--dir", join(dir, `store-${tag}`)] : ["--redis", redisUrl!, `cmp-${tag}:`];
  const client = new tree.mcp.McpClient({ name: "conversations-compare", version: "0" });
  await client.connect(new tree.transport.StdioChildTransport({ name: "store", command: process.execPath, args: [entry, ...args] }));
  return { documents: new tree.store.StoreClient(client), close: () => client.close() };
}

/** A continuer of one seeded conversation: each call times one load and one save, then puts it back. */
async function continuer(tree: Tree, documents: unknown, turns: number) {
  const store = new tree.docs.DocumentConversationStore(async () => documents);
  const base = {
    id: `cmp-${turns}`,
    owner: "local",
    title: "compare",
    messages: Array.from({ length: turns }, (_, i) => turn(i)).flat(),
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    runs: [],
    tokens: { count: turns * 200, messages: turns * 4 },
    dropped: 0,
  };
  await store.save(base, (await store.get(base.id, "local"))?.version ?? 0);
  let n = 0;
  return async (): Promise<{ load: number; save: number }> => {
    const t0 = performance.now();
    const logger = tree.log.nullLogger;
    const run = await tree.run.beginConversation({ store, maxTokens: 10_000_000 }, base.id, {
      runId: `r${n++}`,
      input: "next",
      owner: "local",
      logger,
    });
    const t1 = performance.now();
    run.onMessages([...run.history, ...turn(turns)]);
    await run.end();
    const t2 = performance.now();
    await store.save(base, (await store.get(base.id, "local"))!.version);
    return { load: t1 - t0, save: t2 - t1 };
  };
}

const p50 = (xs: number[]) => sig(percentile(xs, 50));

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf("--samples");
  const samples = at >= 0 ? Number(args.splice(at, 2)[1]) : 100;
  const [oldRoot, newRoot = resolve(import.meta.dir, "../..")] = args;
  if (!oldRoot) throw new Error("usage: conversations-compare.ts OLD_CHECKOUT [NEW_CHECKOUT] [--samples N]");
  const trees = { old: await treeAt(resolve(oldRoot)), new: await treeAt(resolve(newRoot)) };
  const dir = mkdtempSync(join(tmpdir(), "agentd-conv-compare-"));
  const redis = redisServerPath ? await startRedis() : undefined;
  const before = loadavg()[0]!;
  const out: Record<string, unknown[]> = {};
  try {
    for (const kind of redis ? ["local", "directory", "redis"] : ["local", "directory"]) {
      out[kind] = [];
      for (const turns of TURNS) {
        const opened = {
          old: await storeOf(trees.old, kind, dir, redis?.url, `old-${turns}`),
          new: await storeOf(trees.new, kind, dir, redis?.url, `new-${turns}`),
        };
        const step = {
          old: await continuer(trees.old, opened.old.documents, turns),
          new: await continuer(trees.new, opened.new.documents, turns),
        };
        const got = {
          old: { load: [] as number[], save: [] as number[], total: [] as number[] },
          new: { load: [] as number[], save: [] as number[], total: [] as number[] },
        };
        for (let i = 0; i < samples + 3; i++)
          for (const which of i % 2 ? (["new", "old"] as const) : (["old", "new"] as const)) {
            const { load, save } = await step[which]();
            if (i < 3) continue;
            got[which].load.push(load);
            got[which].save.push(save);
            got[which].total.push(load + save);
          }
        await opened.old.close();
        await opened.new.close();
        const figures = (g: typeof got.old) => ({ loadP50: p50(g.load), saveP50: p50(g.save), totalP50: p50(g.total) });
        out[kind].push({ turns, old: figures(got.old), new: figures(got.new) });
      }
    }
  } finally {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ samples, loadAverage: { before: sig(before), after: sig(loadavg()[0]!) }, ...out }));
}

if (import.meta.main) await main();
