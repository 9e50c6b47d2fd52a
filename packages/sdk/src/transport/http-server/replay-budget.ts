/**
 * The server-wide byte budget of `Last-Event-ID` replay: every session's stored events together stay under
 * `maxBytes`, the oldest event of the whole server going first. Each session's store has its own, smaller
 * bound as well (see `event-store.ts`); this one keeps many sessions each near their own bound from adding
 * up to more than the operator allowed.
 *
 * Events are queued in the order they were stored, which is also the order within each store, so the
 * server's oldest live event is always the oldest of its own store. Events a store dropped on its own
 * (delivered, evicted by its own bound, session ended) stay in the queue as empty husks until they reach
 * the front; the queue is compacted when husks outnumber live events, so it never grows past twice the
 * live count.
 */

/** One stored event as the budget sees it: its size, and a way to evict it from its store. */
export interface BudgetedEvent {
  /** Bytes charged (0 once the event has left its store). */
  bytes: number;
  /** Remove the event from its store because the server-wide budget is exceeded. */
  evict(): void;
}

/** A byte budget shared by every event store of one server. */
export class ReplayBudget {
  private queue: BudgetedEvent[] = [];
  private head = 0;
  private used = 0;
  private live = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes held by all stores. */
  get bytes(): number {
    return this.used;
  }

  /** Charge an event just stored; evicts the server's oldest events until the total fits again. */
  charge(event: BudgetedEvent): void {
    this.queue.push(event);
    this.used += event.bytes;
    this.live++;
    while (this.used > this.maxBytes && this.head < this.queue.length) {
      const oldest = this.queue[this.head++]!;
      if (oldest.bytes > 0) oldest.evict();
    }
    this.compact();
  }

  /** An event left its store (delivered, evicted, session ended): its bytes are free again. */
  release(event: BudgetedEvent): void {
    if (event.bytes === 0) return;
    this.used -= event.bytes;
    this.live--;
    event.bytes = 0;
  }

  private compact(): void {
    if (this.queue.length - this.head > 2 * this.live + 64) {
      this.queue = this.queue.slice(this.head).filter((e) => e.bytes > 0);
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
