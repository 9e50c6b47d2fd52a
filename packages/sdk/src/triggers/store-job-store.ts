/**
 * A {@link JobStore} in an MCP store (`agentd store`), so a schedule's last fire survives the pod that ran
 * it: a replica that comes back — or another one — computes the missed ticks from it. One document per
 * schedule, `jobs/<identity>/<scheduleId>` holding `{ lastFire }`; `identity` names the agent (every
 * replica of one agent shares it, so they share the record; the runs they catch up are claimed once).
 *
 * Same semantics as the file: `get` gives the stored instant, `set` records a later one. Written with
 * compare-and-set and never moved backward, because here several replicas may record the same schedule.
 */
import { sha256 } from "../_internal/hash.ts";
import type { CompareAndSetResult, StoredDocument } from "../store/types.ts";
import { AgentdError } from "../wire/errors.ts";
import type { JobStore } from "./job-store.ts";

/** What the job store needs of a store: `StoreClient` (any MCP store) or a backend. */
export interface JobDocumentStore {
  get(key: string): Promise<StoredDocument | undefined>;
  compareAndSet(key: string, expectedVersion: number, value: unknown): Promise<CompareAndSetResult>;
}

/** Options of {@link StoreJobStore}. */
export interface StoreJobStoreOptions {
  store: JobDocumentStore | (() => Promise<JobDocumentStore>);
  /** The agent the schedules belong to (letters, digits and `. _ : @ -`). */
  identity: string;
  /** Called by {@link StoreJobStore.close} (release the store connection). */
  close?: () => Promise<void>;
}

/** A job store in an MCP store; see the module header. */
export class StoreJobStore implements JobStore {
  private store: Promise<JobDocumentStore> | undefined;

  constructor(private readonly options: StoreJobStoreOptions) {}

  /** The document key of a schedule's record (long or unusual schedule ids are hashed). */
  key(scheduleId: string): string {
    const id = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,80}$/.test(scheduleId) ? scheduleId : `_${hash(scheduleId)}`;
    return `jobs/${this.options.identity}/${id}`;
  }

  async get(scheduleId: string): Promise<string | undefined> {
    const doc = await (await this.connect()).get(this.key(scheduleId));
    const lastFire = (doc?.value as { lastFire?: unknown } | undefined)?.lastFire;
    return typeof lastFire === "string" && !Number.isNaN(Date.parse(lastFire)) ? lastFire : undefined;
  }

  /** Records `lastFireIso` unless a later instant is already stored (another replica moved first). */
  async set(scheduleId: string, lastFireIso: string): Promise<void> {
    const store = await this.connect();
    const key = this.key(scheduleId);
    for (let attempt = 0; attempt < 8; attempt++) {
      const doc = await store.get(key);
      const stored = (doc?.value as { lastFire?: unknown } | undefined)?.lastFire;
      if (typeof stored === "string" && Date.parse(stored) >= Date.parse(lastFireIso)) return;
      const r = await store.compareAndSet(key, doc?.version ?? 0, { lastFire: lastFireIso });
      if (r.ok) return;
    }
    throw new AgentdError("E_STORE", `job store: the record of schedule ${scheduleId} kept changing under this write; try again`, {
      retryable: true,
    });
  }

  async close(): Promise<void> {
    await this.options.close?.();
  }

  private connect(): Promise<JobDocumentStore> {
    const s = this.options.store;
    if (!this.store) {
      const opening = typeof s === "function" ? s() : Promise.resolve(s);
      // A failed connection is tried again by the next use.
      this.store = opening.catch((e: unknown) => {
        this.store = undefined;
        throw e;
      });
    }
    return this.store;
  }
}

function hash(s: string): string {
  return sha256(s, "base64url");
}
