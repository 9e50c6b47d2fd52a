/**
 * The MCP codecs, one per protocol revision, built from the method tables in `schemas/`.
 *
 * A codec answers two questions per message: is the method part of this revision (no → -32601), and do the
 * params or result have the right shape (no → -32602, with the field path). Each method's schema is read (its
 * module loaded) when that method is first validated, and compiled once it is in use, into an allocation-free
 * check (`schemas/compile-check.ts`); a valid message costs one `Map` lookup and that check, and comes back as
 * the very object passed in (the `check…` forms allocate nothing at all). Only an invalid one pays for
 * `v.safeParse`, whose issues name the bad field, and for its message.
 */
import * as v from "valibot";
import type { CodecFailure, CodecResult, McpCodec, ProtocolRevision } from "./codec.ts";
import type { AnySchema, RevisionTable } from "./schemas/method-table.ts";
import { table_2025_11_25 } from "./schemas/methods-2025-11-25.ts";
import { type Check, compileCheck } from "./schemas/compile-check.ts";

// The other revisions' tables, and the schemas of the answers only some requests get, are in modules loaded on
// first use by a synchronous `require` (validation is synchronous; a bundler makes each a module run on its
// first call): `initialize` is read with 2025-11-25's table, whose own module loads only the lifecycle's schemas.
const stateless = () => require("./schemas/methods-2026-07-28.ts") as typeof import("./schemas/methods-2026-07-28.ts");

/** How to get each supported revision's method table. Adding a revision is one table file and one line here. */
const TABLES: { readonly [R in ProtocolRevision]: () => RevisionTable } = {
  "2026-07-28": () => stateless().table_2026_07_28(),
  "2025-11-25": table_2025_11_25,
  "2025-06-18": () => (require("./schemas/methods-2025-06-18.ts") as typeof import("./schemas/methods-2025-06-18.ts")).table_2025_06_18(),
  "2025-03-26": () => (require("./schemas/methods-2025-03-26.ts") as typeof import("./schemas/methods-2025-03-26.ts")).table_2025_03_26(),
};

/** The method table of `revision`, built on first use. */
export function revisionTable(revision: ProtocolRevision): RevisionTable {
  const table = Object.hasOwn(TABLES, revision) ? TABLES[revision] : undefined;
  if (table === undefined) throw new TypeError(`no codec for MCP revision ${String(revision)}`);
  return table();
}

/**
 * The method table of every supported revision. Each is built when first read: a server whose sessions
 * speak one revision never builds the other revisions' schemas.
 */
export const REVISION_TABLES: { readonly [R in ProtocolRevision]: RevisionTable } = Object.freeze(
  Object.defineProperties(
    {},
    Object.fromEntries(Object.entries(TABLES).map(([revision, table]) => [revision, { get: table, enumerable: true }])),
  ),
) as { readonly [R in ProtocolRevision]: RevisionTable };

/** How many issues an error message lists before saying "and N more". */
const MAX_ISSUES = 3;

/** Ok results carry the validated value (unknown fields kept: objects are open). */
const ok = (value: unknown): CodecResult => ({ ok: true, value: value as Record<string, unknown> });

/** A located problem: dot path segments from the root, and what is wrong there. */
interface Located {
  path: string[];
  message: string;
}

const segments = (issue: v.BaseIssue<unknown>): string[] => issue.path?.map((item) => String((item as { key: unknown }).key)) ?? [];

/**
 * The most specific problem under an issue. Under a union, the alternative that got deepest into the value
 * is most likely the one the sender meant, so its issue is the useful one ("content.0.text: expected
 * string", not "expected Object | Array"). Union sub-issues carry paths relative to the union's value.
 */
function locate(issue: v.BaseIssue<unknown>, prefix: string[]): Located {
  const here = [...prefix, ...segments(issue)];
  if (!issue.issues || issue.issues.length === 0) {
    // valibot says 'Invalid key: Expected "name" but received undefined' for a missing required field.
    const missing = issue.input === undefined && issue.message.startsWith("Invalid key");
    return { path: here, message: missing ? "required, but missing" : issue.message };
  }
  let best: Located | undefined;
  for (const sub of issue.issues) {
    const found = locate(sub, here);
    if (best === undefined || found.path.length > best.path.length) best = found;
  }
  return best ?? { path: here, message: issue.message };
}

/** One clause per issue, `params.arguments.city: Invalid type: Expected string but received 3`. */
export function formatIssues(root: string, issues: readonly v.BaseIssue<unknown>[]): string {
  const lines: string[] = [];
  for (const issue of issues.slice(0, MAX_ISSUES)) {
    const { path, message } = locate(issue, []);
    lines.push(`${[root, ...path].join(".")}: ${message}`);
  }
  if (issues.length > MAX_ISSUES) lines.push(`and ${issues.length - MAX_ISSUES} more`);
  return lines.join("; ");
}

/**
 * A schema and its fast check, compiled once the schema has been used {@link COMPILE_AFTER} times: a process
 * speaks a handful of the ~50 methods, and compiling all of them up front cost ~10 ms of every start-up (the
 * demo pays it in two processes). Until then valibot's own `v.is` answers (the same verdict; compiling one
 * schema, e.g. the tools/call result's, costs 1–4 ms of cold code against ~0.3 ms for a few `v.is` calls):
 * a one-shot run validates each of its methods a few times and never pays for a compilation.
 */
class Validator {
  private check: Check | undefined;
  private uses = 0;
  private loaded: AnySchema | undefined;
  /** `load` gives the schema on the first validation (reading it may load its module: a method table's getter). */
  constructor(private readonly load: () => AnySchema) {}
  /** The schema (loaded on the first call). */
  get schema(): AnySchema {
    return (this.loaded ??= this.load());
  }
  fast(value: unknown): boolean {
    if (this.check !== undefined) return this.check(value);
    if (++this.uses <= COMPILE_AFTER) return v.is(this.loaded ?? this.schema, value);
    return (this.check = compileCheck(this.schema))(value);
  }
}

/** Uses of a schema answered by `v.is` before its check is compiled. */
const COMPILE_AFTER = 32;

/** A validator of the schema `load` gives, on first use. */
const validator = (load: () => AnySchema): Validator => new Validator(load);

/** Params a message leaves out are checked as `{}`: one shared, frozen object (a check never writes). */
const NO_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * Why `value`, refused by `val`'s fast check, is invalid; `undefined` if valibot accepts it after all (the
 * compiled check and valibot agree, as tested; should they ever not, valibot's verdict stands). The message
 * is built here, on failure only: a valid message costs no string.
 */
function failure(val: Validator, value: unknown, root: string, what: string, method: string): CodecFailure | undefined {
  const r = v.safeParse(val.schema, value);
  return r.success ? undefined : { ok: false, unknown: false, message: `${what} for ${method}: ${formatIssues(root, r.issues)}` };
}

/** `undefined` when `value` satisfies `val`, else the failure. */
const check = (val: Validator, value: unknown, root: string, what: string, method: string): CodecFailure | undefined =>
  val.fast(value) ? undefined : failure(val, value, root, what, method);

/** True for a plain object carrying a `task` object: the shape of a `CreateTaskResult`. */
const looksLikeTaskResult = (r: unknown): boolean =>
  typeof r === "object" && r !== null && typeof (r as { task?: unknown }).task === "object";

const createTaskResult = validator(() => (require("./schemas/tasks.ts") as typeof import("./schemas/tasks.ts")).CreateTaskResultSchema);
const inputRequiredResult = validator(() => stateless().InputRequiredResultSchema);

/** True for a result saying `resultType: "input_required"` (multi round-trip requests). */
const looksLikeInputRequired = (r: unknown): boolean =>
  typeof r === "object" && r !== null && (r as { resultType?: unknown }).resultType === "input_required";

/** One request method of a revision: its checks, and which other result shapes it may be answered with. */
interface RequestSpec {
  params: Validator;
  result: Validator;
  taskAugmentable: boolean;
  inputRequired: boolean;
  taskResult: Validator | undefined;
}

/** Build the codec of one revision from its table. Prefer {@link getCodec}, which caches. */
export function createCodec(revision: ProtocolRevision, table: RevisionTable): McpCodec {
  const requests = new Map<string, RequestSpec>();
  for (const [method, spec] of Object.entries({ ...table.requests, ...table.extensions?.requests }))
    requests.set(method, {
      // The schemas are read on the method's first validation: reading one may load its module.
      params: validator(() => spec.params),
      result: validator(() => spec.result),
      taskAugmentable: spec.taskAugmentable === true,
      inputRequired: spec.inputRequired === true,
      taskResult: spec.taskResult === undefined ? undefined : validator(() => spec.taskResult as AnySchema),
    });
  const notifications = new Map<string, Validator>();
  for (const [method, spec] of Object.entries({ ...table.notifications, ...table.extensions?.notifications }))
    notifications.set(
      method,
      validator(() => spec.params),
    );
  const unknownRequest = (method: string): CodecFailure => ({
    ok: false,
    unknown: true,
    message: `Method not found: "${method}" is not a request of MCP ${revision}`,
  });
  // The checks allocate nothing for a valid message; the `CodecResult` forms wrap them for callers that want
  // the value back (it is the input itself: objects are open, nothing is copied).
  const checkRequestParams = (method: string, params: unknown): CodecFailure | undefined => {
    const spec = requests.get(method);
    if (spec === undefined) return unknownRequest(method);
    return check(spec.params, params ?? NO_PARAMS, "params", "Invalid params", method);
  };
  const checkNotificationParams = (method: string, params: unknown): CodecFailure | undefined => {
    const val = notifications.get(method);
    if (val === undefined) return { ok: false, unknown: true, message: `"${method}" is not a notification of MCP ${revision}` };
    return check(val, params ?? NO_PARAMS, "params", "Invalid params", method);
  };
  const checkResult = (method: string, result: unknown): CodecFailure | undefined => {
    const spec = requests.get(method);
    if (spec === undefined) return unknownRequest(method);
    // An interim InputRequiredResult has none of the final result's fields: check it as what it says it is.
    if (spec.inputRequired && looksLikeInputRequired(result))
      return check(inputRequiredResult, result, "result", "Invalid input-required result", method);
    if (spec.result.fast(result)) return undefined;
    // A task-augmented request is answered with a CreateTaskResult instead of its usual result.
    if (spec.taskAugmentable && looksLikeTaskResult(result))
      return check(createTaskResult, result, "result", "Invalid task result", method);
    // Tasks extension: a flat task handle (whether it was negotiated is the client's to check).
    if (spec.taskResult !== undefined && (result as { resultType?: unknown } | undefined)?.resultType === "task")
      return check(spec.taskResult, result, "result", "Invalid task result", method);
    return failure(spec.result, result, "result", "Invalid result", method);
  };
  return {
    revision,
    batches: table.batches,
    stateful: table.stateful,
    knowsRequest: (method) => requests.has(method),
    knowsNotification: (method) => notifications.has(method),
    requestParams: (method, params) => checkRequestParams(method, params) ?? ok(params ?? {}),
    notificationParams: (method, params) => checkNotificationParams(method, params) ?? ok(params ?? {}),
    mayRequireInput: (method) => requests.get(method)?.inputRequired === true,
    result: (method, result) => checkResult(method, result) ?? ok(result),
    checkRequestParams,
    checkNotificationParams,
    checkResult,
  };
}

const cache = new Map<ProtocolRevision, McpCodec>();

/** The codec of `revision` (built once, then shared). */
export function getCodec(revision: ProtocolRevision): McpCodec {
  let codec = cache.get(revision);
  if (codec === undefined) {
    codec = createCodec(revision, revisionTable(revision));
    cache.set(revision, codec);
  }
  return codec;
}

/** Who may send request `method` in `revision` (`undefined`: not a request of that revision). */
export const requestSender = (revision: ProtocolRevision, method: string) => {
  const t = revisionTable(revision);
  if (Object.hasOwn(t.requests, method)) return t.requests[method]?.from;
  return t.extensions && Object.hasOwn(t.extensions.requests, method) ? t.extensions.requests[method]?.from : undefined;
};

/** Who may send notification `method` in `revision` (`undefined`: not a notification of that revision). */
export const notificationSender = (revision: ProtocolRevision, method: string) => {
  const t = revisionTable(revision);
  if (Object.hasOwn(t.notifications, method)) return t.notifications[method]?.from;
  return t.extensions && Object.hasOwn(t.extensions.notifications, method) ? t.extensions.notifications[method]?.from : undefined;
};
