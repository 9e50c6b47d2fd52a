import { afterEach, describe, expect, test } from "bun:test";
import { readBoundedBody } from "./body.ts";

const URL_ = "http://127.0.0.1/mcp";
const utf8 = (s: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(s);

/** A POST declaring `length` bytes whose body sends `first` and then stalls (a slow-body client), or ends. */
function post(first: string, length = first.length, stall = false): Request {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(utf8(first));
      if (!stall) c.close();
    },
  });
  return new Request(URL_, { method: "POST", body, headers: { "content-length": String(length) } });
}

const realSetTimeout = globalThis.setTimeout;
afterEach(() => {
  globalThis.setTimeout = realSetTimeout;
});

/** Count the timers armed while `fn` runs. */
async function timersArmedBy(fn: () => Promise<unknown>): Promise<number> {
  let armed = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    armed++;
    return realSetTimeout(...args);
  }) as typeof setTimeout;
  try {
    await fn();
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  return armed;
}

describe("body deadlines", () => {
  test("reads of declared bodies share one deadline timer instead of arming one each", async () => {
    // A timer per request (set, raced, cleared) cost a quick request more than reading its body.
    const timeoutMs = 4321; // a timeout no other test uses: its queue starts empty, with no timer armed
    const armed = await timersArmedBy(async () => {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => readBoundedBody(post(`{"id":${i}}`), 1024, timeoutMs)));
      expect(results.map((r) => r.ok && r.text)).toEqual(Array.from({ length: 50 }, (_, i) => `{"id":${i}}`));
      // Later reads, after the first batch finished, reuse the timer already armed.
      expect(await readBoundedBody(post("{}"), 1024, timeoutMs)).toEqual({ ok: true, text: "{}" });
    });
    expect(armed).toBeLessThanOrEqual(1);
  });

  test("a stalled body gets 408 at its deadline while the reads around it finish", async () => {
    const timeoutMs = 150;
    const stalled = readBoundedBody(post("{", 100, true), 1024, timeoutMs);
    const quick = await Promise.all([1, 2, 3].map((i) => readBoundedBody(post(`[${i}]`), 1024, timeoutMs)));
    expect(quick).toEqual([1, 2, 3].map((i) => ({ ok: true, text: `[${i}]` })));
    const started = performance.now();
    expect(await stalled).toEqual({ ok: false, status: 408 });
    // And not long after it (it started before `started`).
    expect(performance.now() - started).toBeLessThanOrEqual(timeoutMs + 1000);
  });

  test("each of two stalled bodies expires at its own deadline, not the first one's", async () => {
    const timeoutMs = 300;
    const t0 = performance.now();
    const first = readBoundedBody(post("{", 100, true), 1024, timeoutMs).then(() => performance.now() - t0);
    await new Promise((r) => realSetTimeout(r, 100));
    const second = readBoundedBody(post("{", 100, true), 1024, timeoutMs).then(() => performance.now() - t0);
    const [a, b] = await Promise.all([first, second]);
    expect(a).toBeGreaterThanOrEqual(timeoutMs - 5);
    expect(b).toBeGreaterThanOrEqual(timeoutMs + 100 - 5);
  });
});
