/**
 * Test helpers for the trigger layer (not exported): a fake MCP client with subscribable resources, a
 * recorder of router events with wait-for-event helpers, and run functions the test controls.
 */
import type { TriggerRouter, TriggerRouterEvents } from "../router.ts";
import type { ResourceContents, SubscribableClient } from "../subscription-source.ts";
import type { RunOutcome, TriggerEvent } from "../types.ts";

/** An in-memory resource server seen through the {@link SubscribableClient} interface. */
export class FakeResourceClient implements SubscribableClient {
  readonly texts = new Map<string, string>();
  subscribeCalls = 0;
  unsubscribeCalls = 0;
  reads = 0;
  /** Every call, in order: "subscribe", "read", "unsubscribe". */
  readonly calls: string[] = [];
  /** While down, notifications are lost (as on a dropped stream). */
  up = true;
  private readonly callWaiters: Array<{ name: string; count: number; resolve: () => void }> = [];
  private readonly updated = new Set<(uri: string) => void>();
  private readonly reconnected = new Set<() => void>();

  constructor(private readonly canSubscribe = true) {}

  supportsSubscribe(): boolean {
    return this.canSubscribe;
  }
  async subscribe(): Promise<void> {
    this.subscribeCalls++;
    this.called("subscribe");
  }
  async unsubscribe(): Promise<void> {
    this.unsubscribeCalls++;
    this.called("unsubscribe");
  }
  async readResource(uri: string): Promise<{ contents: ResourceContents[] }> {
    this.reads++;
    this.called("read");
    const text = this.texts.get(uri);
    return { contents: text === undefined ? [] : [{ uri, mimeType: "text/plain", text }] };
  }
  onResourceUpdated(listener: (uri: string) => void): () => void {
    this.updated.add(listener);
    return () => this.updated.delete(listener);
  }
  onReconnected(listener: () => void): () => void {
    this.reconnected.add(listener);
    return () => this.reconnected.delete(listener);
  }
  /** Change a resource; the server notifies subscribers (when the connection is up). */
  set(uri: string, text: string): void {
    this.texts.set(uri, text);
    this.notify(uri);
  }
  /** Send `notifications/resources/updated` without a change (a re-delivered notification). */
  notify(uri: string): void {
    if (this.up) for (const l of this.updated) l(uri);
  }
  /** The connection comes back: listeners of reconnects are told. */
  reconnect(): void {
    this.up = true;
    for (const l of this.reconnected) l();
  }
  /** Resolves once `name` has been called `count` times in all (at the call itself, before it returns). */
  waitForCalls(name: "subscribe" | "unsubscribe" | "read", count: number): Promise<void> {
    if (this.calls.filter((c) => c === name).length >= count) return Promise.resolve();
    return new Promise((resolve) => this.callWaiters.push({ name, count, resolve }));
  }
  private called(name: string): void {
    this.calls.push(name);
    const n = this.calls.filter((c) => c === name).length;
    for (let i = this.callWaiters.length - 1; i >= 0; i--) {
      const w = this.callWaiters[i];
      if (w && w.name === name && n >= w.count) {
        this.callWaiters.splice(i, 1);
        w.resolve();
      }
    }
  }
  get listeners(): number {
    return this.updated.size;
  }
}

type Records = { [K in keyof TriggerRouterEvents]: TriggerRouterEvents[K][] };

/** Records every router event and lets a test wait for one. */
export function record(router: TriggerRouter) {
  const records: Records = { fire: [], drop: [], "run-start": [], "run-end": [], "source-end": [], "source-error": [] };
  const waiters: Array<{ check: () => boolean; resolve: () => void }> = [];
  const names = Object.keys(records) as Array<keyof TriggerRouterEvents>;
  for (const name of names)
    router.on(name, (payload) => {
      (records[name] as unknown[]).push(payload);
      for (let i = waiters.length - 1; i >= 0; i--) {
        const w = waiters[i];
        if (w?.check()) {
          waiters.splice(i, 1);
          w.resolve();
        }
      }
    });
  /** Resolves once `count` events named `name` (matching `match`) have been recorded. */
  const waitFor = <K extends keyof TriggerRouterEvents>(
    name: K,
    count = 1,
    match: (p: TriggerRouterEvents[K]) => boolean = () => true,
  ): Promise<void> => {
    const check = () => (records[name] as TriggerRouterEvents[K][]).filter(match).length >= count;
    if (check()) return Promise.resolve();
    return new Promise((resolve) => waiters.push({ check, resolve }));
  };
  return { records, waitFor };
}

/** A run function whose runs end when the test says so; counts concurrency. */
export function controlledRuns() {
  const started: Array<{ event: TriggerEvent; instruction: string; signal: AbortSignal; finish: (o?: RunOutcome) => void }> = [];
  let current = 0;
  let maxConcurrent = 0;
  const run = (event: TriggerEvent, signal: AbortSignal, context: { instruction: string }) =>
    new Promise<RunOutcome>((resolve, reject) => {
      current++;
      maxConcurrent = Math.max(maxConcurrent, current);
      const done = () => current--;
      signal.addEventListener("abort", () => {
        done();
        reject(signal.reason);
      });
      started.push({
        event,
        instruction: context.instruction,
        signal,
        finish: (o = { status: "ok" }) => {
          if (signal.aborted) return;
          done();
          resolve(o);
        },
      });
    });
  return {
    run,
    started,
    get current() {
      return current;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
  };
}

/** A run function that ends at once, recording what it saw. */
export function instantRuns() {
  const seen: Array<{ event: TriggerEvent; instruction: string }> = [];
  const run = async (event: TriggerEvent, _signal: AbortSignal, context: { instruction: string }): Promise<RunOutcome> => {
    seen.push({ event, instruction: context.instruction });
    return { status: "ok" };
  };
  return { run, seen };
}
