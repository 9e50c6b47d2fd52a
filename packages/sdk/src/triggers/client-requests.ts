/**
 * A bound on the requests subscription sources have in flight on one client, so thousands of them do
 * not flood one server.
 *
 * Every source starts at once (subscribe, then read) and re-reads on every notification. With 10,000
 * subscribed resources on one server that was 10,000 requests at once, and a server with a bound on the
 * requests it handles at once refuses the rest (agentd's own answers "too many requests in flight" past
 * 1,024; the official SDK has no bound and queues them all): those triggers were reported unavailable, and
 * a refused re-read lost its change until the next one. Here the sources of one client keep at most
 * {@link MAX_SOURCE_REQUESTS} in flight and the rest wait their turn in order; requests of the agent's
 * runs (tools/call …) are not counted.
 */

/** Requests of subscription sources in flight per client, at most. */
export const MAX_SOURCE_REQUESTS = 256;

interface Gate {
  active: number;
  readonly waiting: Array<() => void>;
  /** Index of the next waiter in `waiting` (entries before it have been let through). */
  head: number;
}

const gates = new WeakMap<object, Gate>();

/** Run `call` once fewer than {@link MAX_SOURCE_REQUESTS} calls of `client`'s sources are in flight. */
export async function boundedRequest<T>(client: object, call: () => Promise<T>): Promise<T> {
  const gate = gates.get(client) ?? { active: 0, waiting: [], head: 0 };
  gates.set(client, gate);
  if (gate.active >= MAX_SOURCE_REQUESTS) await new Promise<void>((resolve) => gate.waiting.push(resolve));
  else gate.active++;
  try {
    return await call();
  } finally {
    release(client, gate);
  }
}

/** Hand the slot to the next waiter (the count stays), or give it back. */
function release(client: object, gate: Gate): void {
  if (gate.head < gate.waiting.length) {
    const next = gate.waiting[gate.head] as () => void;
    gate.waiting[gate.head++] = noop;
    // Drop the let-through prefix now and then, so the queue does not grow without bound.
    if (gate.head >= 1024 && gate.head * 2 >= gate.waiting.length) {
      gate.waiting.splice(0, gate.head);
      gate.head = 0;
    }
    next();
    return;
  }
  gate.active--;
  gate.waiting.length = 0;
  gate.head = 0;
  if (gate.active === 0) gates.delete(client);
}

const noop = () => {};
