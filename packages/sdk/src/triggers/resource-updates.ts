/**
 * `notifications/resources/updated`, dispatched by URI: one listener per client, however many resources
 * are watched on it.
 *
 * With one listener per subscription, every notification ran every subscription's check: a burst of 100
 * changes on a server with 1,000 subscribed resources made 100,000 calls before the first re-read was
 * sent. Here a notification looks up only the URIs that can concern it (see {@link concernsResource}):
 * the updated URI itself and its prefixes that end in `/` or are followed by `/`, `?` or `#` — a handful
 * of map look-ups, whatever the number of subscriptions.
 */
import type { SubscribableClient } from "./subscription-source.ts";

interface ClientIndex {
  readonly byUri: Map<string, Set<() => void>>;
  off(): void;
}

const indexes = new WeakMap<SubscribableClient, ClientIndex>();

/**
 * Call `onUpdate` whenever `client` hears that `uri`, or a resource below it, was updated. Returns the
 * function that stops it; the client's own listener is removed with the last watch.
 */
export function watchResourceUpdates(client: SubscribableClient, uri: string, onUpdate: () => void): () => void {
  let index = indexes.get(client);
  if (!index) {
    const byUri = new Map<string, Set<() => void>>();
    const off = client.onResourceUpdated((updated) => dispatch(byUri, updated));
    index = { byUri, off };
    indexes.set(client, index);
  }
  const { byUri } = index;
  let watchers = byUri.get(uri);
  if (!watchers) byUri.set(uri, (watchers = new Set()));
  const watcher = () => onUpdate();
  watchers.add(watcher);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    watchers.delete(watcher);
    if (watchers.size > 0 || byUri.get(uri) !== watchers) return;
    byUri.delete(uri);
    if (byUri.size === 0 && indexes.get(client) === index) {
      indexes.delete(client);
      index.off();
    }
  };
}

/** The watched URIs that `updated` concerns, the same set `concernsResource` accepts. */
function dispatch(byUri: Map<string, Set<() => void>>, updated: string): void {
  let due: Array<() => void> | undefined;
  const take = (uri: string) => {
    const watchers = byUri.get(uri);
    if (watchers) (due ??= []).push(...watchers);
  };
  take(updated);
  for (let i = 1; i < updated.length; i++) {
    const next = updated.charCodeAt(i);
    // A prefix ending in "/", or one followed by "/", "?" or "#" (47, 63, 35).
    if (updated.charCodeAt(i - 1) === 47 || next === 47 || next === 63 || next === 35) take(updated.slice(0, i));
  }
  if (due) for (const watcher of due) watcher();
}
