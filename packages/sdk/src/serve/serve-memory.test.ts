/**
 * Memory on `serve --http` stays bounded under the load that once took the server from ~40 MB to 1.5 GB
 * RSS: six sessions each read a ~1 MB run result 250 times, then 100 sessions each run an instruction with
 * a ~1 MB answer and never end their session. The server runs in a child process; its resident set is read
 * after a full collection there, so the figure is what the server retains, not what the collector has yet
 * to reclaim.
 *
 * Stated bound: after the load, RSS is within 100 MiB of its value before it (it used to grow by ~1.5 GB).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { startChildServer, type ChildServer } from "./__fixtures__/child-server.ts";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";

const MiB = 1024 * 1024;
const BOUND = 100 * MiB;

let child: ChildServer | undefined;
afterEach(async () => {
  await child?.stop();
  child = undefined;
}, 30_000);

describe("serve --http memory", () => {
  test("large answers read again and again, and runs never ended, leave RSS within 100 MiB of the start", async () => {
    child = await startChildServer({ answerBytes: 1_000_000 });
    const url = child.url;
    const warm = await openSession(url);
    await call(url, warm, 1, "tools/call", { name: "agent.run", arguments: { instruction: "warm", runId: "warm" } });
    await call(url, warm, 2, "resources/read", { uri: "agent://runs/warm" });
    const before = await child.rss();

    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const s = await openSession(url);
        await call(url, s, 1, "tools/call", { name: "agent.run", arguments: { instruction: `big ${i}`, runId: `r-${i}` } });
        for (let k = 0; k < 250; k++) {
          const { response } = await call(url, s, 10 + k, "resources/read", { uri: `agent://runs/r-${i}` });
          expect(response.result.contents[0].text.length).toBeGreaterThan(1_000_000);
        }
      }),
    );
    const afterReads = await child.rss();
    await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const s = await openSession(url);
        const { response } = await call(url, s, 1, "tools/call", { name: "agent.run", arguments: { instruction: `run ${i}` } });
        expect(response.result.content[0].text.length).toBe(1_000_000);
      }),
    );
    const afterRuns = await child.rss();
    console.log(
      `serve-memory: RSS ${(before / MiB).toFixed(0)} MiB → ${(afterReads / MiB).toFixed(0)} after 1,500 reads → ${(afterRuns / MiB).toFixed(0)} after 100 runs`,
    );
    expect(afterReads - before).toBeLessThan(BOUND);
    expect(afterRuns - before).toBeLessThan(BOUND);
  }, 180_000);
});
