import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { compileCheck } from "./compile-check.ts";
import { looseObject, record } from "./open-object.ts";
import { REVISION_TABLES } from "../codecs.ts";
import { SUPPORTED_REVISIONS } from "../codec.ts";
import { CORPUS, kindOf } from "../../__fixtures__/corpus.ts";

type Path = (string | number)[];

/** Every path to a value inside `x` (the root excluded). */
function paths(x: unknown, at: Path = []): Path[] {
  if (typeof x !== "object" || x === null) return [];
  const out: Path[] = [];
  for (const [k, child] of Object.entries(x)) {
    const p = [...at, Array.isArray(x) ? Number(k) : k];
    out.push(p, ...paths(child, p));
  }
  return out;
}

const DELETE = Symbol("delete");
const REPLACEMENTS: unknown[] = [DELETE, null, 1.5, 3, -1, "s", "", true, [], {}, [{}], undefined];

function mutate(x: unknown, path: Path, replacement: unknown): unknown {
  const copy = structuredClone(x) as Record<string | number, unknown>;
  let parent = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (replacement === DELETE) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = replacement;
  return copy;
}

describe("compileCheck agrees with valibot", () => {
  for (const revision of SUPPORTED_REVISIONS) {
    test(`${revision}: over every corpus message and ${REPLACEMENTS.length} mutations at every path of each`, () => {
      const table = REVISION_TABLES[revision];
      let compared = 0;
      let rejected = 0;
      const disagreements: string[] = [];
      for (const e of CORPUS) {
        const m = e.message as { method?: string; params?: unknown; result?: unknown };
        const kind = kindOf(e);
        const schema =
          kind === "request"
            ? table.requests[e.method]?.params
            : kind === "notification"
              ? table.notifications[e.method]?.params
              : kind === "result"
                ? table.requests[e.method]?.result
                : undefined;
        if (schema === undefined) continue;
        const value = kind === "result" ? m.result : (m.params ?? {});
        const fast = compileCheck(schema);
        const samples = [value, ...paths(value).flatMap((p) => REPLACEMENTS.map((r) => mutate(value, p, r)))];
        for (const sample of samples) {
          compared++;
          const verdict = v.is(schema, sample);
          if (!verdict) rejected++;
          if (fast(sample) !== verdict) disagreements.push(`${e.name}: ${JSON.stringify(sample)}`);
        }
      }
      expect(disagreements.slice(0, 5)).toEqual([]);
      // Both verdicts are well represented, so agreement is not vacuous.
      // The corpus is of the handshake revisions: 2026-07-28 shares its result and notification shapes only.
      expect(compared).toBeGreaterThan(revision === "2026-07-28" ? 2500 : 5000);
      expect(rejected).toBeGreaterThan(compared / 10);
      expect(compared - rejected).toBeGreaterThan(compared / 10);
    });
  }

  test("arrays are not objects, in records and loose objects alike", () => {
    const schema = looseObject({ a: v.optional(record(v.number())) });
    const fast = compileCheck(schema);
    for (const x of [{}, { a: {} }, { a: { k: 1 } }, [], { a: [] }, { a: [1] }, { a: { k: "1" } }, null])
      expect(fast(x)).toBe(v.is(schema, x));
    expect(fast({ a: [] })).toBe(false);
  });

  test("what it does not model, it delegates to valibot", () => {
    const schema = looseObject({
      email: v.pipe(v.string(), v.email()),
      n: v.optional(v.number(), 5),
      when: v.optional(v.date()),
    });
    const fast = compileCheck(schema);
    for (const x of [{ email: "a@b.example" }, { email: "nope" }, { email: "a@b.example", n: "x" }, { email: "a@b.example", when: 1 }])
      expect(fast(x)).toBe(v.is(schema, x));
  });

  test("is built once per schema", () => {
    const schema = REVISION_TABLES["2025-11-25"].requests["tools/call"]?.params as v.GenericSchema;
    expect(compileCheck(schema)).toBe(compileCheck(schema));
  });
});
