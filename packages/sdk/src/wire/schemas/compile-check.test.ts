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

  // Hand-written valid and invalid messages of each shape the generated fast paths handle: the content-block
  // variant chosen by its `type` (a switch), optional fields read once instead of `in` + read, records of any
  // value checked without a loop, required fields that accept anything (only presence is checked).
  const text = { type: "text", text: "hi" };
  const SHAPES: [string, string, unknown[]][] = [
    [
      "tools/call",
      "result",
      [
        { content: [text] },
        { content: [text, { type: "image", data: "AA==", mimeType: "image/png" }, { type: "audio", data: "AA==", mimeType: "audio/wav" }] },
        {
          content: [
            { type: "resource_link", name: "r", uri: "file:///r" },
            { type: "resource", resource: { uri: "file:///r", text: "t" } },
          ],
        },
        { content: [{ type: "resource", resource: { uri: "file:///r", blob: "AA==" } }], isError: true, structuredContent: { a: [1] } },
        { content: [] },
        { content: [{}] },
        { content: [{ text: "no type" }] },
        { content: [{ type: 3, text: "t" }] },
        { content: [{ type: "Text", text: "t" }] },
        { content: [{ type: "text" }] },
        { content: [{ type: "text", text: undefined }] },
        { content: [{ type: "image", text: "t" }] },
        { content: [{ type: "resource", resource: { uri: "file:///r" } }] },
        { content: [{ type: "resource_link", uri: "file:///r" }] },
        { content: [[text]] },
        { content: [null] },
        { content: ["text"] },
        { content: [{ ...text, annotations: { priority: 2 } }] },
        { content: [{ ...text, annotations: { audience: ["user"] } }] },
        { content: [{ ...text, _meta: [] }] },
        { content: [{ ...text, _meta: null }] },
        { content: [{ ...text, _meta: undefined }] },
        { content: [text], structuredContent: [] },
        { content: [text], structuredContent: null },
        { content: [text], isError: "no" },
        { content: [text], isError: undefined },
        { content: text },
        { content: undefined },
        {},
        [],
        null,
        { content: [Object.assign(Object.create({ type: "text" }), { text: "inherited tag" })] },
      ],
    ],
    [
      "tools/call",
      "request",
      [
        { name: "t" },
        { name: "t", arguments: {} },
        { name: "t", arguments: { a: undefined, b: [1, { c: null }] } },
        { name: "t", arguments: [] },
        { name: "t", arguments: null },
        { name: "t", arguments: undefined },
        { name: "t", arguments: "a=1" },
        { name: "t", _meta: { progressToken: "p" } },
        { name: "t", _meta: { progressToken: 1.5 } },
        { name: "t", _meta: { progressToken: undefined } },
        { name: "t", _meta: { progressToken: null } },
        { name: "t", _meta: [] },
        { name: undefined },
        { arguments: {} },
        { name: 1 },
        { name: "t", task: {} },
        { name: "t", task: { ttl: 1.5 } },
        { name: "t", task: [] },
        Object.create({ name: "inherited" }),
      ],
    ],
    [
      "notifications/message",
      "notification",
      [
        { level: "info", data: null },
        { level: "info", data: undefined },
        { level: "info" },
        { level: "verbose", data: 1 },
        { level: "info", data: 1, logger: 2 },
        { level: "info", data: 1, logger: undefined },
        { data: 1 },
      ],
    ],
    [
      "notifications/progress",
      "notification",
      [
        { progressToken: "p", progress: 1 },
        { progressToken: 2, progress: 1, total: 3, message: "m" },
        { progressToken: "p", progress: Number.NaN },
        { progressToken: "p", progress: 1, total: Number.NaN },
        { progressToken: 1.5, progress: 1 },
        { progress: 1 },
        { progressToken: "p" },
        { progressToken: "p", progress: 1, message: 3 },
        { progressToken: "p", progress: 1, total: undefined },
      ],
    ],
    [
      "notifications/initialized",
      "notification",
      [{}, { _meta: {} }, { _meta: { a: 1 } }, { _meta: [] }, { _meta: null }, { _meta: undefined }, [], null, "x"],
    ],
  ];
  for (const revision of SUPPORTED_REVISIONS) {
    test(`${revision}: the fast paths agree with valibot on valid and invalid messages of each shape`, () => {
      const table = REVISION_TABLES[revision];
      const disagreements: string[] = [];
      const verdicts = new Set<boolean>();
      for (const [method, kind, samples] of SHAPES) {
        const schema =
          kind === "notification"
            ? table.notifications[method]?.params
            : kind === "request"
              ? table.requests[method]?.params
              : table.requests[method]?.result;
        // 2026-07-28 has no initialize, so no notifications/initialized.
        if (schema === undefined && method === "notifications/initialized" && revision === "2026-07-28") continue;
        if (schema === undefined) throw new Error(`${revision} has no ${method} ${kind}`);
        const fast = compileCheck(schema);
        for (const sample of samples) {
          const verdict = v.is(schema, sample);
          verdicts.add(verdict);
          if (fast(sample) !== verdict) disagreements.push(`${method} ${kind}: ${JSON.stringify(sample)} (valibot ${verdict})`);
        }
      }
      expect(disagreements).toEqual([]);
      expect([...verdicts].sort()).toEqual([false, true]);
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
