/** Collects values (notifications) and lets a test wait for one matching a predicate, event-driven. */
export class Collector<T> {
  readonly items: T[] = [];
  private readonly waiters = new Set<() => void>();

  push = (item: T): void => {
    this.items.push(item);
    for (const w of [...this.waiters]) w();
  };

  /** Resolves with the first item (from index `from`) matching `match`, as soon as it arrives. */
  waitFor(match: (item: T) => boolean, from = 0): Promise<T> {
    return new Promise((resolve) => {
      const check = () => {
        const found = this.items.slice(from).find(match);
        if (found === undefined) return;
        this.waiters.delete(check);
        resolve(found);
      };
      this.waiters.add(check);
      check();
    });
  }
}

/**
 * Record every message an SDK client transport delivers, in wire order, before the client handles it.
 * Call after `client.connect` (which installs the handler this wraps). The official SDK dispatches
 * notifications a microtask later than responses, so a progress notification that arrives in the same
 * read as its response reaches `onprogress` after the request settled and is dropped; the wire order here
 * is what the server actually sent.
 */
export function tapMessages(transport: { onmessage?: ((message: any, extra?: any) => void) | undefined }): Collector<Record<string, any>> {
  const tap = new Collector<Record<string, any>>();
  const inner = transport.onmessage;
  transport.onmessage = (message, extra) => {
    tap.push(message);
    inner?.(message, extra);
  };
  return tap;
}
