/**
 * The shape of a per-revision method table: which requests and notifications a revision defines, who may
 * send each, and the schemas of their params and results. A codec is built from one table
 * (`../codecs.ts`); adding a revision is one more table file.
 *
 * Each table is built on first use ({@link lazyTable}): a server whose sessions all speak one revision never
 * builds the others' schemas.
 */
import type * as v from "valibot";

/** Any valibot schema (sync). */
export type AnySchema = v.GenericSchema<unknown, unknown>;

/** Who may send a message: the client, the server, or either side. */
export type Sender = "client" | "server" | "both";

/** A request method's entry. */
export interface RequestSpec {
  /** Who may send this request. */
  readonly from: Sender;
  /** Schema of `params` (absent params are validated as `{}`). */
  readonly params: AnySchema;
  /** Schema of the result. */
  readonly result: AnySchema;
  /** Whether the request may be task-augmented (`params.task`), so its answer may be a `CreateTaskResult`. */
  readonly taskAugmentable?: boolean;
  /** The schema of a flat `resultType: "task"` answer (tasks extension, 2026-07-28 on), when one may come. */
  readonly taskResult?: AnySchema;
  /** Whether the answer may be an `InputRequiredResult` (multi round-trip requests, 2026-07-28 on). */
  readonly inputRequired?: boolean;
}

/** A notification method's entry. */
export interface NotificationSpec {
  /** Who may send this notification. */
  readonly from: Sender;
  /** Schema of `params` (absent params are validated as `{}`). */
  readonly params: AnySchema;
}

/** Everything a codec needs to know about one protocol revision. */
export interface RevisionTable {
  /** The revision string, as negotiated in `initialize` / `MCP-Protocol-Version`. */
  readonly revision: string;
  /** Whether JSON-RPC batches are allowed. */
  readonly batches: boolean;
  /** Whether the revision has `initialize` and sessions. */
  readonly stateful: boolean;
  /** Request methods of this revision. */
  readonly requests: Readonly<Record<string, RequestSpec>>;
  /** Notification methods of this revision. */
  readonly notifications: Readonly<Record<string, NotificationSpec>>;
  /** Methods of official extensions spoken in this revision (known to the codec; answered only when negotiated). */
  readonly extensions?: {
    readonly requests: Readonly<Record<string, RequestSpec>>;
    readonly notifications: Readonly<Record<string, NotificationSpec>>;
  };
}

/** The revisions whose tables have been built in this process, in the order they were built. */
const built: string[] = [];

/**
 * A revision's table, built by `build` on the first call and the same object after. Tables are built on
 * first use because a process speaks the revisions its peers choose, usually one, and each table built
 * is schemas (and their compiled checks) the process then holds for its life.
 */
export function lazyTable<T extends RevisionTable>(build: () => T): () => T {
  let table: T | undefined;
  return () => {
    if (table === undefined) {
      table = build();
      built.push(table.revision);
    }
    return table;
  };
}

/** The revisions whose tables this process has built so far (for tests and memory profiles). */
export const builtRevisionTables = (): readonly string[] => [...built];
