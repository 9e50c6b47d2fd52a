/**
 * A tiny typed event emitter: `on` returns the unsubscribe function, a throwing listener never stops the
 * others (the emitter reports it instead), and `emit` is synchronous.
 */

import type { Logger } from "../../log.ts";

/** Unsubscribe a listener. */
export type Unsubscribe = () => void;

/** Listener signature for an event whose payload is `P` (`void` events take no argument). */
export type Listener<P> = [P] extends [void] ? () => void : (payload: P) => void;

/** An emitter over an event map `{ name: payload }`. */
export class Emitter<Events extends { [K in keyof Events]: unknown }> {
  /** Created with the first listener: many emitters (one per idle session) never get one. */
  private listeners: Map<keyof Events, Set<(payload: unknown) => void>> | undefined;

  /** @param onListenerError called when a listener throws (listeners are user code). */
  constructor(private readonly onListenerError: (event: string, error: unknown) => void = () => {}) {}

  /** Add a listener; returns a function that removes it. */
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): Unsubscribe {
    const listeners = (this.listeners ??= new Map());
    let set = listeners.get(event);
    if (!set) listeners.set(event, (set = new Set()));
    const fn = listener as (payload: unknown) => void;
    set.add(fn);
    return () => set.delete(fn);
  }

  /** Add a listener that runs at most once. */
  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): Unsubscribe {
    const off = this.on(event, ((payload: unknown) => {
      off();
      (listener as (payload: unknown) => void)(payload);
    }) as Listener<Events[K]>);
    return off;
  }

  /** Deliver `payload` to every listener of `event`. */
  emit<K extends keyof Events>(event: K, ...payload: [Events[K]] extends [void] ? [] : [Events[K]]): void {
    const set = this.listeners?.get(event);
    if (!set) return;
    for (const fn of [...set]) {
      try {
        fn(payload[0]);
      } catch (e) {
        this.onListenerError(String(event), e);
      }
    }
  }

  /** Number of listeners of `event` (for tests and leak checks). */
  listenerCount(event: keyof Events): number {
    return this.listeners?.get(event)?.size ?? 0;
  }
}

/** The usual `onListenerError`: a warning `mcp.listener_error` naming the event. */
export function listenerErrorReporter(logger: Logger): (event: string, error: unknown) => void {
  return (event, error) => logger.warn("mcp.listener_error", { listener: event, error });
}
