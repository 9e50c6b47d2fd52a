/**
 * The server-wide byte budget of `Last-Event-ID` replay: every session's stored events together stay under
 * `maxBytes`, the oldest event of the whole server going first. Each session's store has its own, smaller
 * bound as well (see `event-store.ts`); this one keeps many sessions each near their own bound from adding
 * up to more than the operator allowed.
 *
 * Events are linked oldest to newest in the order they were stored, which is also the order within each
 * store, so the server's oldest live event is always the oldest of its own store. The links are the events'
 * own fields: charging, releasing and evicting an event are each a few pointer writes, with no queue of
 * husks behind it to compact (which was, per request, the budget's largest cost under load).
 */

/** One stored event as the budget sees it: its size, a way to evict it from its store, and the budget's links. */
export interface BudgetedEvent {
  /** Bytes charged (0 once the event has left its store). */
  bytes: number;
  /** @internal The next older event charged to the budget, while this one is charged. */
  older: BudgetedEvent | undefined;
  /** @internal The next newer event charged to the budget, while this one is charged. */
  newer: BudgetedEvent | undefined;
  /** Remove the event from its store because the server-wide budget is exceeded. */
  evict(): void;
}

/** A byte budget shared by every event store of one server. */
export class ReplayBudget {
  /** The oldest and newest events charged (see the module header). */
  private oldest: BudgetedEvent | undefined;
  private newest: BudgetedEvent | undefined;
  private used = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes held by all stores. */
  get bytes(): number {
    return this.used;
  }

  /** Charge an event just stored; evicts the server's oldest events until the total fits again. */
  charge(event: BudgetedEvent): void {
    // An empty event frees nothing when evicted: the budget need not know it (nor ever release it).
    if (event.bytes === 0) return;
    const newest = this.newest;
    event.older = newest;
    event.newer = undefined;
    if (newest) newest.newer = event;
    else this.oldest = event;
    this.newest = event;
    this.used += event.bytes;
    while (this.used > this.maxBytes) {
      const oldest = this.oldest!;
      oldest.evict();
      // A store that no longer knew the event still lets its bytes go: the loop always moves on.
      this.release(oldest);
    }
  }

  /** An event left its store (delivered, evicted, session ended): its bytes are free again. */
  release(event: BudgetedEvent): void {
    if (event.bytes === 0) return;
    this.used -= event.bytes;
    event.bytes = 0;
    const { older, newer } = event;
    if (older) older.newer = newer;
    else this.oldest = newer;
    if (newer) newer.older = older;
    else this.newest = older;
    // Unlinked: a released event holds no other alive, nor do they hold it.
    event.older = undefined;
    event.newer = undefined;
  }
}
