/**
 * Runs claimed once across replicas. Before a triggered run starts, its run id is claimed in a store with
 * compare-and-set: the document `claims/<runId>` holds `{holder, state, expiresAt}`. The holder renews its
 * lease while the run goes on, marks it `done` when the run succeeded (a later delivery of the same run id,
 * on any replica, is already done) and deletes it when the run failed (so it can be run again). A replica
 * that finds the claim held waits; when the lease expires — its holder died — it takes the claim over
 * with compare-and-set on the version it read, so of several waiting replicas exactly one wins.
 *
 * Leases compare wall clocks of different hosts: the lease must be much longer than their skew.
 *
 * Retention (`retentionMs`, off unless set): a `done` claim carries `keepUntil`, the end of its retention;
 * past it the claim counts as absent (the run id can be claimed and run again) and {@link RunClaims.sweeper}
 * deletes it (store/retention.ts).
 */
import { nullLogger, type Logger } from "../log.ts";
import { StoreSweeper, sweepInterval, type SweepRule, type SweepStore } from "./retention.ts";
import type { CompareAndSetResult, StoredDocument } from "./types.ts";

/** What claims need of a store: {@link StoreClient} (any MCP store) or a backend. */
export interface ClaimStore {
  get(key: string): Promise<StoredDocument | undefined>;
  compareAndSet(key: string, expectedVersion: number, value: unknown): Promise<CompareAndSetResult>;
  delete(key: string, expectedVersion?: number): Promise<boolean>;
}

/** A claim document. */
export interface ClaimDocument {
  holder: string;
  state: "running" | "done";
  /** Epoch ms; a running claim past it may be taken over (a done claim: when it was marked done). */
  expiresAt: number;
  /** A done claim: epoch ms until which it answers "already done" (absent: written without retention). */
  keepUntil?: number;
}

/** Until when a done claim answers "already done" (undefined: for ever). */
export function claimKeptUntil(doc: ClaimDocument, retentionMs: number | undefined): number | undefined {
  return doc.keepUntil ?? (retentionMs !== undefined ? doc.expiresAt + retentionMs : undefined);
}

/** A claim this replica holds. */
export interface HeldClaim {
  /** Aborts when the lease was lost (another replica took it over after a missed renewal). */
  readonly lost: AbortSignal;
  /** Took the claim over from a holder whose lease expired. */
  readonly takenOver: boolean;
  /** When taken over: the holder whose lease expired (its checkpoint names what it had under way). */
  readonly previousHolder?: string;
  /** When taken over: the expired claim it replaced (its holder and `expiresAt`). */
  readonly previous?: ClaimDocument;
  /** End the claim: `done` after success (kept), released (deleted) otherwise. */
  end(succeeded: boolean): Promise<void>;
}

/** The outcome of {@link RunClaims.acquire}. */
export type ClaimOutcome = { status: "claimed"; claim: HeldClaim } | { status: "done" } | { status: "aborted" };

/** Options of {@link RunClaims}. */
export interface RunClaimsOptions {
  store: ClaimStore | (() => Promise<ClaimStore>);
  /** This replica's name in claims (default: a random id). */
  holder?: string;
  /** Lease length in ms (default 30 s); renewed every third of it. */
  leaseMs?: number;
  /** How long a succeeded run's claim answers "already done" (default: for ever; see the module header). */
  retentionMs?: number;
  now?: () => number;
  /**
   * Telemetry: `claim.acquired` (with `takenOverFrom` and `expiredAt` on a takeover), `claim.ended`
   * (`done` or `released`) once the store acknowledged it, `claim.lost`; renewals at debug level.
   */
  logger?: Logger;
}

/** Claims of run ids in a store. See the module header. */
export class RunClaims {
  readonly holder: string;
  readonly leaseMs: number;
  readonly retentionMs: number | undefined;
  private readonly now: () => number;
  private readonly logger: Logger;
  private store: Promise<ClaimStore> | undefined;

  constructor(private readonly options: RunClaimsOptions) {
    this.holder = options.holder ?? crypto.randomUUID();
    this.leaseMs = options.leaseMs ?? 30_000;
    this.retentionMs = options.retentionMs;
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? nullLogger;
  }

  /** The key of a run id's claim. */
  static key(runId: string): string {
    return `claims/${runId}`;
  }

  /** Claim `runId`; waits while another live replica holds it. */
  async acquire(runId: string, signal: AbortSignal): Promise<ClaimOutcome> {
    const store = await this.connect();
    const key = RunClaims.key(runId);
    for (;;) {
      if (signal.aborted) return { status: "aborted" };
      const current = await store.get(key);
      const doc = current?.value as ClaimDocument | undefined;
      const keptUntil = doc?.state === "done" ? claimKeptUntil(doc, this.retentionMs) : undefined;
      if (doc?.state === "done" && (keptUntil === undefined || keptUntil > this.now())) return { status: "done" };
      // A done claim past its retention is as good as absent: the run id is claimed afresh (no takeover).
      const retired = doc?.state === "done";
      const expired = doc !== undefined && !retired && doc.expiresAt <= this.now();
      if (doc === undefined || retired || expired || doc.holder === this.holder) {
        const mine: ClaimDocument = { holder: this.holder, state: "running", expiresAt: this.now() + this.leaseMs };
        const set = await store.compareAndSet(key, current?.version ?? 0, mine);
        if (set.ok) {
          const previous = expired && doc?.holder !== this.holder ? doc : undefined;
          this.logger.info("claim.acquired", {
            runId,
            holder: this.holder,
            version: set.version,
            takenOverFrom: previous?.holder,
            expiredAt: previous?.expiresAt,
          });
          return { status: "claimed", claim: this.hold(store, runId, set.version, previous) };
        }
        continue; // someone else moved first: read again
      }
      // Held by a live replica: look again when its lease would expire (or sooner, to see a release).
      await wait(Math.min(Math.max(doc.expiresAt - this.now(), 1) + 10, this.leaseMs / 2), signal);
    }
  }

  /**
   * A sweeper deleting this store's done claims past their retention (`prefix`: which claims, default all);
   * undefined without `retentionMs`. The caller starts and stops it.
   */
  sweeper(logger: Logger, name: string, prefix = "claims/", skip?: string): StoreSweeper | undefined {
    const retentionMs = this.retentionMs;
    if (retentionMs === undefined) return undefined;
    return new StoreSweeper({
      store: () => this.connect() as Promise<ClaimStore & SweepStore>,
      rules: [claimsSweepRule(retentionMs, prefix, skip)],
      intervalMs: sweepInterval(retentionMs),
      logger,
      name,
      now: this.now,
    });
  }

  private connect(): Promise<ClaimStore> {
    const s = this.options.store;
    return (this.store ??= typeof s === "function" ? s() : Promise.resolve(s));
  }

  private hold(store: ClaimStore, runId: string, version: number, previous: ClaimDocument | undefined): HeldClaim {
    const key = RunClaims.key(runId);
    const lost = new AbortController();
    let ended = false;
    let renewing: Promise<void> = Promise.resolve();
    const renew = async () => {
      const next: ClaimDocument = { holder: this.holder, state: "running", expiresAt: this.now() + this.leaseMs };
      const set = await store.compareAndSet(key, version, next).catch(() => undefined);
      if (set?.ok) {
        version = set.version;
        this.logger.debug("claim.renewed", { runId, version });
      } else if (set) {
        this.logger.warn("claim.lost", { runId, holder: this.holder });
        lost.abort(new Error(`the claim on ${key} was taken over by another replica`));
      }
      // A store error: keep the claim and try again at the next renewal, while the lease lasts.
    };
    const timer = setInterval(() => {
      if (!ended) renewing = renewing.then(renew);
    }, this.leaseMs / 3);
    return {
      lost: lost.signal,
      takenOver: previous !== undefined,
      previous,
      previousHolder: previous?.holder,
      end: async (succeeded) => {
        ended = true;
        clearInterval(timer);
        await renewing;
        if (lost.signal.aborted) return;
        if (succeeded) {
          const doneAt = this.now();
          const set = await store.compareAndSet(key, version, {
            holder: this.holder,
            state: "done",
            expiresAt: doneAt,
            ...(this.retentionMs !== undefined ? { keepUntil: doneAt + this.retentionMs } : {}),
          } satisfies ClaimDocument);
          if (set.ok) this.logger.info("claim.ended", { runId, state: "done", version: set.version });
        } else if (await store.delete(key, version)) this.logger.info("claim.ended", { runId, state: "released" });
      },
    };
  }
}

/**
 * The sweep rule of done claims under `prefix`, but not under `skip` (swept by their own rule). Running
 * claims are never swept: their holder or a takeover ends them.
 */
export function claimsSweepRule(retentionMs: number, prefix = "claims/", skip?: string): SweepRule {
  return {
    prefix,
    expiresAt: (value, key) => {
      if (skip && key.startsWith(skip)) return undefined;
      const doc = value as Partial<ClaimDocument> | undefined;
      if (doc?.state !== "done" || typeof doc.expiresAt !== "number") return undefined;
      return claimKeptUntil(doc as ClaimDocument, retentionMs);
    },
  };
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
