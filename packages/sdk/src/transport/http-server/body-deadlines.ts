/**
 * The deadlines of body reads in flight, one timer for every read that shares a timeout. A timer per read
 * (`setTimeout` and `clearTimeout`, raced against the read) cost a quick request more than its body read;
 * under load nearly every read finishes within microseconds, so the reads sit in a queue ordered by their
 * deadline (they share one timeout, so arrival order is deadline order), leave it in O(1) when they finish,
 * and a single timer, armed for the oldest, expires those that are due. The timer is not cancelled when
 * the queue empties: it fires once more, finds nothing due, and stops, so a busy server arms it about once
 * per timeout rather than once per request. Each read still expires at its own deadline.
 */

/** One read waiting on its deadline: told at most once, either way. */
export interface DeadlineEntry {
  /** When it expires (`performance.now()` time). */
  at: number;
  prev: DeadlineEntry | undefined;
  next: DeadlineEntry | undefined;
  /** Whether it is still waiting (false once it finished or expired). */
  queued: boolean;
  /** The deadline passed first. */
  expire(): void;
}

/** The reads in flight that share one timeout, oldest first. */
class DeadlineQueue {
  private head: DeadlineEntry | undefined;
  private tail: DeadlineEntry | undefined;
  private armed = false;

  constructor(private readonly timeoutMs: number) {}

  /** Start `entry`'s deadline now. */
  add(entry: DeadlineEntry): void {
    entry.at = performance.now() + this.timeoutMs;
    entry.queued = true;
    entry.prev = this.tail;
    entry.next = undefined;
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    if (!this.armed) this.arm(this.timeoutMs);
  }

  /** Take `entry` out (it finished); false if it was no longer waiting (it expired). */
  remove(entry: DeadlineEntry): boolean {
    if (!entry.queued) return false;
    entry.queued = false;
    const { prev, next } = entry;
    if (prev) prev.next = next;
    else this.head = next;
    if (next) next.prev = prev;
    else this.tail = prev;
    entry.prev = entry.next = undefined;
    return true;
  }

  private arm(ms: number): void {
    this.armed = true;
    setTimeout(() => this.fire(), Math.max(1, Math.ceil(ms)));
  }

  private fire(): void {
    this.armed = false;
    const now = performance.now();
    let e = this.head;
    while (e !== undefined && e.at <= now) {
      this.remove(e);
      e.expire();
      e = this.head;
    }
    if (e !== undefined) this.arm(e.at - now);
  }
}

/** One queue per timeout in use (a process runs one or a few servers). */
const queues = new Map<number, DeadlineQueue>();

/** The queue of reads whose deadline is `timeoutMs` after they start. */
export function deadlinesOf(timeoutMs: number): DeadlineQueue {
  let q = queues.get(timeoutMs);
  if (q === undefined) queues.set(timeoutMs, (q = new DeadlineQueue(timeoutMs)));
  return q;
}
