/**
 * A process whose only work is a {@link DeadlineQueue} (for `deadline-queue.test.ts`): the test checks
 * whether the queue's one timer keeps the process alive. Prints `fired` when the item comes due.
 *
 *   bun deadline-liveness.ts pending MS   an item due in MS ms: the process must live until it fires
 *   bun deadline-liveness.ts removed      an item due in 10 minutes, then removed: the process must exit now
 *   bun deadline-liveness.ts never        an item due never (Infinity): the process must exit now
 */
import { DeadlineQueue, type Deadlined } from "../deadline-queue.ts";

const [mode = "", ms = "200"] = process.argv.slice(2);
const queue = new DeadlineQueue<Deadlined>(() => console.log("fired"));
const item: Deadlined = { deadline: 0, order: 0, slot: -1 };
if (mode === "pending") queue.add(item, performance.now() + Number(ms));
else if (mode === "removed") {
  queue.add(item, performance.now() + 600_000);
  queue.remove(item);
} else if (mode === "never") queue.add(item, Infinity);
else throw new Error(`unknown mode ${mode}`);
console.log(`queued keepsAlive=${queue.keepsAlive}`);
