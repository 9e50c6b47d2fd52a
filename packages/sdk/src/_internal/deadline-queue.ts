/**
 * Many deadlines, one timer: a min-heap of items ordered by deadline, with a single `setTimeout` armed for
 * the earliest. A timer per item costs a `setTimeout` and a `clearTimeout` (and a closure) each time, which
 * showed as ~5% of a stdio client's CPU at one request per round trip; here the timer is re-armed only when
 * it fires or when a deadline earlier than the armed one arrives. An item that leaves before its deadline
 * (the usual case: a response came) is taken out of the heap and the timer is left alone: it fires at its
 * time, finds nothing due and re-arms for the new earliest deadline.
 *
 * Liveness is that of a timer per item: the timer keeps the process alive while an item with a finite
 * deadline is queued, and is unref'd (not cleared, so the next item may reuse it) when none is.
 *
 * Deadlines are on the `performance.now()` clock, so a wall-clock step cannot make one fire early or late.
 * Items carry their own heap slot, so queueing allocates nothing per item.
 */
import { MAX_TIMEOUT_MS } from "./timer.ts";

/** The bookkeeping an item carries while queued (set by the queue; initialise `slot` to -1). */
export interface Deadlined {
  /** When the item is due, in `performance.now()` milliseconds; Infinity for never. */
  deadline: number;
  /** Tie-break among equal deadlines: earlier queued (or rescheduled) first, as separate timers would. */
  order: number;
  /** Index in the heap; -1 when not queued. */
  slot: number;
}

/** Tuning, for tests. */
export interface DeadlineQueueOptions {
  /** The longest single `setTimeout` (default and upper bound {@link MAX_TIMEOUT_MS}). */
  maxChunkMs?: number;
}

/** A deadline-ordered set of items with one timer; `ondue` is called for each item once its deadline passes. */
export class DeadlineQueue<T extends Deadlined> {
  private readonly heap: T[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires (`performance.now()` ms); Infinity when none is armed. */
  private timerAt = Infinity;
  private timerRef = false;
  private nextOrder = 0;
  private readonly maxChunkMs: number;

  /** @param ondue called with each item whose deadline passed, after it left the queue; may re-enter. */
  constructor(
    private readonly ondue: (item: T) => void,
    options: DeadlineQueueOptions = {},
  ) {
    this.maxChunkMs = Math.max(1, Math.min(options.maxChunkMs ?? MAX_TIMEOUT_MS, MAX_TIMEOUT_MS));
  }

  /** Number of items queued. */
  get size(): number {
    return this.heap.length;
  }

  /** Whether a timer is armed and keeping the process alive (diagnostics, tests). */
  get keepsAlive(): boolean {
    return this.timer !== undefined && this.timerRef;
  }

  /** Queue `item` (not already queued) to be due at `deadline`. */
  add(item: T, deadline: number): void {
    item.deadline = orNow(deadline);
    item.order = this.nextOrder++;
    item.slot = this.heap.length;
    this.heap.push(item);
    this.up(item.slot);
    this.sync();
  }

  /** Move a queued item's deadline (earlier or later); it then orders after others with the same deadline. */
  reschedule(item: T, deadline: number): void {
    if (item.slot < 0) return;
    item.deadline = orNow(deadline);
    item.order = this.nextOrder++;
    this.down(this.up(item.slot));
    this.sync();
  }

  /** Take `item` out; a no-op when it is not queued. */
  remove(item: T): void {
    if (item.slot < 0) return;
    this.removeAt(item.slot);
    this.sync();
  }

  /** The timer: everything due leaves in deadline order, then the timer is re-armed for what is left. */
  private readonly fire = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    this.timerRef = false;
    const now = performance.now();
    let top: T | undefined;
    // Re-read the top each time: `ondue` may add or remove items.
    while ((top = this.heap[0]) !== undefined && top.deadline <= now) {
      this.removeAt(0);
      this.ondue(top);
    }
    this.sync();
  };

  /** Restore the invariant: a finite earliest deadline has a ref'd timer at or before it; else nothing holds the process. */
  private sync(): void {
    const top = this.heap[0];
    if (top === undefined || top.deadline === Infinity) {
      if (this.timerRef) {
        this.timerRef = false;
        this.timer?.unref();
      }
      return;
    }
    if (top.deadline < this.timerAt) {
      if (this.timer !== undefined) clearTimeout(this.timer);
      const now = performance.now();
      // A timer fires no earlier than asked; ceil so a sub-millisecond remainder is not a wasted wake-up.
      const delay = Math.min(Math.max(0, Math.ceil(top.deadline - now)), this.maxChunkMs);
      this.timer = setTimeout(this.fire, delay);
      this.timerAt = now + delay;
      this.timerRef = true;
    } else if (!this.timerRef) {
      this.timerRef = true;
      this.timer?.ref();
    }
  }

  private removeAt(slot: number): void {
    const heap = this.heap;
    const item = heap[slot]!;
    item.slot = -1;
    const last = heap.pop()!;
    if (last === item) return;
    heap[slot] = last;
    last.slot = slot;
    this.down(this.up(slot));
  }

  private before(a: T, b: T): boolean {
    return a.deadline < b.deadline || (a.deadline === b.deadline && a.order < b.order);
  }

  /** Sift up from `slot`; returns the item's final slot. */
  private up(slot: number): number {
    const heap = this.heap;
    const item = heap[slot]!;
    while (slot > 0) {
      const parentSlot = (slot - 1) >> 1;
      const parent = heap[parentSlot]!;
      if (!this.before(item, parent)) break;
      heap[slot] = parent;
      parent.slot = slot;
      slot = parentSlot;
    }
    heap[slot] = item;
    item.slot = slot;
    return slot;
  }

  private down(slot: number): void {
    const heap = this.heap;
    const n = heap.length;
    const item = heap[slot]!;
    for (;;) {
      const left = 2 * slot + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.before(heap[right]!, heap[left]!) ? right : left;
      const c = heap[child]!;
      if (!this.before(c, item)) break;
      heap[slot] = c;
      c.slot = slot;
      slot = child;
    }
    heap[slot] = item;
    item.slot = slot;
  }
}

/** A NaN deadline would never compare due and would block the heap: it is due at once, as `setTimeout(fn, NaN)`. */
function orNow(deadline: number): number {
  return Number.isNaN(deadline) ? -Infinity : deadline;
}
