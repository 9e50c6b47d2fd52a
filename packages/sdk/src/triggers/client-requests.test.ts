import { describe, expect, test } from "bun:test";
import { boundedRequest, MAX_SOURCE_REQUESTS } from "./client-requests.ts";

/** A client whose calls settle when the test says so. */
function heldCalls() {
  let inFlight = 0;
  let most = 0;
  const started: number[] = [];
  const settle: Array<(fail: boolean) => void> = [];
  const call = (i: number) => () =>
    new Promise<number>((resolve, reject) => {
      inFlight++;
      most = Math.max(most, inFlight);
      started.push(i);
      settle[i] = (fail) => {
        inFlight--;
        if (fail) reject(new Error(`call ${i} failed`));
        else resolve(i);
      };
    });
  return { call, started, settle, most: () => most, inFlight: () => inFlight };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

describe("boundedRequest", () => {
  test("at most MAX_SOURCE_REQUESTS in flight per client; the rest start in order as slots free up", async () => {
    const client = {};
    const h = heldCalls();
    const total = MAX_SOURCE_REQUESTS + 50;
    const results = Array.from({ length: total }, (_, i) => boundedRequest(client, h.call(i)));
    for (const r of results) r.catch(() => {}); // judged below, by allSettled
    await turn();
    expect(h.inFlight()).toBe(MAX_SOURCE_REQUESTS);
    // Another client is not held back by this one's queue.
    const other = heldCalls();
    const otherResult = boundedRequest({}, other.call(0));
    await turn();
    expect(other.inFlight()).toBe(1);
    other.settle[0]?.(false);
    expect(await otherResult).toBe(0);
    // A failed call frees its slot as well as a successful one.
    for (let i = 0; i < total; i++) {
      await turn();
      h.settle[i]?.(i % 7 === 0);
    }
    const settled = await Promise.allSettled(results);
    expect(settled.filter((r) => r.status === "rejected")).toHaveLength(Math.ceil(total / 7));
    expect(settled.map((r, i) => (r.status === "fulfilled" ? r.value : i))).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(h.most()).toBe(MAX_SOURCE_REQUESTS);
    expect(h.started).toEqual(Array.from({ length: total }, (_, i) => i));
  });

  test("a long queue drains completely, each call once", async () => {
    const client = {};
    let inFlight = 0;
    let most = 0;
    let calls = 0;
    const total = MAX_SOURCE_REQUESTS * 12;
    const results = await Promise.all(
      Array.from({ length: total }, (_, i) =>
        boundedRequest(client, async () => {
          calls++;
          most = Math.max(most, ++inFlight);
          await turn();
          inFlight--;
          return i;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(calls).toBe(total);
    expect(most).toBe(MAX_SOURCE_REQUESTS);
    // Idle again: the next call starts at once.
    let ran = false;
    await boundedRequest(client, async () => void (ran = true));
    expect(ran).toBe(true);
  });
});
