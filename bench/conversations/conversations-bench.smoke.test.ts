/** Smoke test of the conversations bench: a tiny configuration runs and yields ordered, positive figures. */
import { expect, test } from "bun:test";
import { redisServerPath } from "@agentd/test-support/redis-server";
import { renderConversationsTable, runConversationsBench } from "./conversations-bench.ts";

test("conversations bench: load and save of 10-, 50- and 200-turn conversations on each store", async () => {
  const r = await runConversationsBench(5);
  expect(Object.keys(r).sort()).toEqual(redisServerPath ? ["directory", "local", "redis"] : ["directory", "local"]);
  for (const figures of Object.values(r)) {
    expect(figures.map((f) => f.turns)).toEqual([10, 50, 200]);
    for (const f of figures) {
      expect(f.loadP50).toBeGreaterThan(0);
      expect(f.saveP99).toBeGreaterThanOrEqual(f.saveP50);
      expect(f.bytes).toBeGreaterThan(f.turns * 900);
    }
  }
  const table = renderConversationsTable(r).split("\n");
  expect(table).toHaveLength(2 + Object.keys(r).length);
  expect(table[2]).toStartWith("| local state directory | 10 / 50 / 200 | ");
}, 120_000);
