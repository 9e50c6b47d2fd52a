/**
 * The fleet's run history: with a store configured (`durability.store`), every replica writes each finished
 * run's record there too, so `agent://runs`, `agent://runs/{runId}`, the console and `agentd status` on any
 * replica show the runs of all of them. The store side (keys, bounds, expiry, the connection) is built in
 * the agent layer (agent/from-config/run-history-store.ts); this is what serving needs, and how a listing merges this
 * replica's held runs (the running ones included) with the store's.
 *
 * The store is a help, never a dependency: when it cannot be read, the listing is this replica's own (the
 * store side logs one warning when it becomes unreachable, and one line when it is back).
 */
import { pageOfListed, summaryOf, type ListedRun, type RunPage, type RunQuery } from "./run-list.ts";
import type { RunRecord, RunRegistry } from "./run-registry.ts";

/** Finished runs of every replica, in a shared store. */
export interface SharedRunHistory {
  /** This replica's name, written with each of its runs. */
  readonly replica: string;
  /**
   * Write `owner`'s finished run, or its run that started waiting for a decision (replaced by the run's next
   * record); in the background: a failure is logged, never thrown.
   */
  publish(owner: string, record: RunRecord): void;
  /**
   * The finished runs in the store `viewer` may see (its own; every principal's when undefined, the
   * operator's view), or undefined when the store cannot be read now.
   */
  list(viewer: string | undefined): Promise<ListedRun[] | undefined>;
  /**
   * The newest record of a run with this id: `owner`'s, or anyone's when `owner` is undefined (an operator
   * naming another principal's run). Undefined when none is kept, or the store cannot be read now.
   */
  read(runId: string, owner: string | undefined): Promise<{ owner: string; record: RunRecord } | undefined>;
  /** Release the store connection. */
  close(): Promise<void>;
}

/**
 * A page of runs for `viewer` (undefined: the operator's view, each run with its principal): this replica's
 * held runs only, or, with a shared history, merged with every replica's finished runs in the store.
 */
export async function listRuns(registry: RunRegistry, query: RunQuery, viewer: string | undefined, maxPage?: number): Promise<RunPage> {
  const shared = registry.shared;
  if (!shared) return registry.list(query, viewer, maxPage);
  const local: ListedRun[] = registry.records(viewer).map(({ owner, record }) => ({ owner, summary: summaryOf(record) }));
  const remote = (await shared.list(viewer)) ?? [];
  return pageOfListed([...local, ...remote], query, viewer === undefined, maxPage);
}

/**
 * A run `viewer` may read: its own by this id, held here or in the shared store; an operator (`operator`
 * true) may name another principal's (`owner`), or any principal's run with this id when it names none.
 */
export async function readRun(
  registry: RunRegistry,
  runId: string,
  viewer: { id: string; operator: boolean },
  owner?: string,
): Promise<{ owner: string; record: RunRecord } | undefined> {
  const named = viewer.operator ? owner : viewer.id;
  const ownRecord = registry.get(runId, named ?? viewer.id);
  if (ownRecord) return { owner: named ?? viewer.id, record: ownRecord };
  if (viewer.operator && named === undefined) {
    const found = registry.find(runId)[0];
    if (found) return found;
  }
  return registry.shared ? registry.shared.read(runId, viewer.operator ? named : viewer.id) : undefined;
}
