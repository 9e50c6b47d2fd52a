import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DeadlineQueue, type Deadlined } from "./deadline-queue.ts";

interface Item extends Deadlined {
  name: string;
}
const item = (name: string): Item => ({ name, deadline: 0, order: 0, slot: -1 });

/** A queue recording what came due, with a promise per awaited name. */
function recorder(options?: { maxChunkMs?: number }) {
  const fired: string[] = [];
  const waiters = new Map<string, () => void>();
  const queue = new DeadlineQueue<Item>((i) => {
    fired.push(i.name);
    waiters.get(i.name)?.();
  }, options);
  const due = (name: string) => (fired.includes(name) ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(name, resolve)));
  return { queue, fired, due };
}

const queues: DeadlineQueue<Item>[] = [];
const items: Item[] = [];
afterEach(() => {
  // Nothing may stay armed past a test: take out what a test left queued.
  for (const q of queues.splice(0)) for (const i of items) q.remove(i);
  items.length = 0;
});
function track<T extends { queue: DeadlineQueue<Item> }>(r: T): T {
  queues.push(r.queue);
  return r;
}
const named = (name: string) => {
  const i = item(name);
  items.push(i);
  return i;
};

describe("DeadlineQueue", () => {
  test("items with different deadlines, queued in any order, come due in deadline order (ties in queueing order)", async () => {
    const { queue, fired, due } = track(recorder());
    const now = performance.now();
    const offsets = [45, 5, 30, 15, 60, 15, 0, 25, 50, 10];
    offsets.forEach((ms, i) => queue.add(named(`${i}`), now + ms));
    expect(queue.size).toBe(10);
    await due("4"); // the latest
    const expected = offsets
      .map((ms, i) => ({ ms, i }))
      .sort((a, b) => a.ms - b.ms || a.i - b.i)
      .map(({ i }) => `${i}`);
    expect(fired).toEqual(expected);
    expect(queue.size).toBe(0);
    expect(queue.keepsAlive).toBe(false);
  });

  test("heap order holds through random adds, removals and reschedules (deadlines already past: one timer turn)", async () => {
    const { queue, fired, due } = track(recorder());
    // A fixed-seed generator: the same sequence every run.
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const base = performance.now() - 1_000_000;
    const live = new Map<Item, number>();
    const all: Item[] = [];
    for (let n = 0; n < 2_000; n++) {
      const op = rand();
      const pick = all[Math.floor(rand() * all.length)];
      if (op < 0.5 || !pick) {
        const i = named(`i${n}`);
        all.push(i);
        const d = base + Math.floor(rand() * 500); // many ties on purpose
        queue.add(i, d);
        live.set(i, n);
      } else if (op < 0.75) {
        queue.remove(pick);
        live.delete(pick);
      } else if (live.has(pick)) {
        queue.reschedule(pick, base + Math.floor(rand() * 500));
        live.set(pick, n); // rescheduling orders it after earlier-queued ties
      }
    }
    expect(queue.size).toBe(live.size);
    const expected = [...live].sort(([a, an], [b, bn]) => a.deadline - b.deadline || an - bn).map(([i]) => i.name);
    const last = expected.at(-1)!;
    await due(last);
    expect(fired).toEqual(expected);
  });

  test("an earlier deadline arriving re-arms the timer; a later one does not wait for the earlier", async () => {
    const { queue, fired, due } = track(recorder());
    const far = named("far");
    queue.add(far, performance.now() + 600_000);
    const t0 = performance.now();
    queue.add(named("near"), t0 + 20);
    await due("near");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(20);
    expect(fired).toEqual(["near"]);
    expect(queue.keepsAlive).toBe(true); // "far" is still queued
    queue.remove(far);
    expect(queue.keepsAlive).toBe(false);
  });

  test("removing the earliest item: it never comes due; the next one still does, at its own deadline", async () => {
    const { queue, fired, due } = track(recorder());
    const t0 = performance.now();
    const first = named("first");
    queue.add(first, t0 + 10);
    queue.add(named("second"), t0 + 40);
    queue.remove(first);
    queue.remove(first); // a no-op once out
    await due("second");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(40);
    expect(fired).toEqual(["second"]);
  });

  test("rescheduling later (a progress reset) moves the item behind others and delays it", async () => {
    const { queue, fired, due } = track(recorder());
    const t0 = performance.now();
    const a = named("a");
    queue.add(a, t0 + 10);
    queue.add(named("b"), t0 + 30);
    queue.reschedule(a, t0 + 60);
    await due("a");
    expect(performance.now() - t0).toBeGreaterThanOrEqual(60);
    expect(fired).toEqual(["b", "a"]);
  });

  test("rescheduling earlier re-arms the timer for it", async () => {
    const { queue, fired, due } = track(recorder());
    const late = named("late");
    queue.add(late, performance.now() + 600_000);
    queue.reschedule(late, performance.now() + 5);
    await due("late");
    expect(fired).toEqual(["late"]);
    expect(queue.keepsAlive).toBe(false);
  });

  test("a deadline longer than one timer chunk is waited out chunk after chunk", async () => {
    const { queue, fired, due } = track(recorder({ maxChunkMs: 7 }));
    const t0 = performance.now();
    queue.add(named("x"), t0 + 60);
    await due("x");
    // ~9 chunks of 7 ms: a queue that fired at its first chunk would be far below this.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(60);
    expect(fired).toEqual(["x"]);
  });

  test("Infinity never comes due and holds no timer; NaN is due at once and blocks nothing behind it", async () => {
    const { queue, fired, due } = track(recorder());
    queue.add(named("never"), Infinity);
    expect(queue.keepsAlive).toBe(false);
    queue.add(named("nan"), NaN);
    queue.add(named("soon"), performance.now() + 5);
    await due("soon");
    expect(fired).toEqual(["nan", "soon"]);
    expect(queue.size).toBe(1);
    expect(queue.keepsAlive).toBe(false);
  });

  test("an item queued from inside the due callback is served by the same timer", async () => {
    const fired: string[] = [];
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => (done = resolve));
    const queue: DeadlineQueue<Item> = new DeadlineQueue<Item>((i) => {
      fired.push(i.name);
      if (i.name === "first") queue.add(named("second"), performance.now() + 5);
      else done();
    });
    queues.push(queue);
    queue.add(named("first"), performance.now() + 5);
    await finished;
    expect(fired).toEqual(["first", "second"]);
    expect(queue.keepsAlive).toBe(false);
  });
});

describe("DeadlineQueue keeps the process alive exactly while a finite deadline is queued", () => {
  const FIXTURE = join(import.meta.dir, "__fixtures__", "deadline-liveness.ts");
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  afterEach(() => {
    if (proc && proc.exitCode === null) process.kill(proc.pid, "SIGKILL");
    proc = undefined;
  });
  const run = async (...args: string[]) => {
    proc = Bun.spawn([process.execPath, FIXTURE, ...args], { stdout: "pipe", stderr: "inherit" });
    const out = await new Response(proc.stdout as ReadableStream).text();
    return { out: out.trim().split("\n"), code: await proc.exited };
  };

  test("a queued item holds the process until it comes due", async () => {
    expect(await run("pending", "300")).toEqual({ out: ["queued keepsAlive=true", "fired"], code: 0 });
  }, 30_000);

  test("once the last item is removed, the armed timer no longer holds the process (it exits long before 10 minutes)", async () => {
    expect(await run("removed")).toEqual({ out: ["queued keepsAlive=false"], code: 0 });
  }, 30_000);

  test("an item due never holds nothing", async () => {
    expect(await run("never")).toEqual({ out: ["queued keepsAlive=false"], code: 0 });
  }, 30_000);
});
