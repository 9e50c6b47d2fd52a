import { describe, expect, test } from "bun:test";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020";
import { validateJsonSchema } from "./json-schema.ts";

// ajv is the oracle: every row's validity must agree with it (and with the row's own expectation,
// so a row that both get wrong cannot pass silently).
const ajv2020 = new Ajv2020({ strict: false, validateFormats: false });
const ajv07 = new Ajv({ strict: false, validateFormats: false });

type Row = [name: string, schema: Record<string, unknown>, value: unknown, valid: boolean, draft?: "07"];

const person = {
  type: "object",
  properties: { name: { type: "string", minLength: 1 }, age: { type: "integer", minimum: 0 } },
  required: ["name"],
  additionalProperties: false,
};
const tree = {
  $defs: {
    node: {
      type: "object",
      properties: { v: { type: "number" }, kids: { type: "array", items: { $ref: "#/$defs/node" } } },
      required: ["v"],
    },
  },
  $ref: "#/$defs/node",
};

const rows: Row[] = [
  ["type string ok", { type: "string" }, "x", true],
  ["type string bad", { type: "string" }, 1, false],
  ["type integer ok", { type: "integer" }, 3, true],
  ["type integer 1.0", { type: "integer" }, 1.0, true],
  ["type integer bad", { type: "integer" }, 1.5, false],
  ["type number int", { type: "number" }, 7, true],
  ["type null", { type: "null" }, null, true],
  ["type null bad", { type: "null" }, 0, false],
  ["type boolean bad", { type: "boolean" }, "true", false],
  ["type object not array", { type: "object" }, [], false],
  ["type array not object", { type: "array" }, {}, false],
  ["type list ok", { type: ["string", "null"] }, null, true],
  ["type list bad", { type: ["string", "null"] }, 2, false],
  ["enum ok", { enum: ["a", 1, null] }, 1, true],
  ["enum bad", { enum: ["a", 1, null] }, "b", false],
  ["enum deep", { enum: [{ a: [1, 2] }] }, { a: [1, 2] }, true],
  ["const object key order", { const: { a: 1, b: 2 } }, { b: 2, a: 1 }, true],
  ["const bad", { const: "x" }, "y", false],
  ["properties ok", person, { name: "ann", age: 3 }, true],
  ["required missing", person, { age: 3 }, false],
  ["additionalProperties false", person, { name: "a", extra: 1 }, false],
  ["nested property type", person, { name: "a", age: -1 }, false],
  ["additionalProperties schema ok", { additionalProperties: { type: "number" } }, { a: 1, b: 2 }, true],
  ["additionalProperties schema bad", { additionalProperties: { type: "number" } }, { a: "1" }, false],
  ["patternProperties ok", { patternProperties: { "^x-": { type: "string" } }, additionalProperties: false }, { "x-a": "s" }, true],
  ["patternProperties bad", { patternProperties: { "^x-": { type: "string" } }, additionalProperties: false }, { "x-a": 1 }, false],
  ["pattern excluded from additional", { patternProperties: { "^x-": {} }, additionalProperties: false }, { y: 1 }, false],
  ["required ignores non-objects", { required: ["a"] }, "str", true],
  ["minProperties", { minProperties: 2 }, { a: 1 }, false],
  ["items ok", { items: { type: "integer" } }, [1, 2, 3], true],
  ["items bad", { items: { type: "integer" } }, [1, "2"], false],
  ["prefixItems ok", { prefixItems: [{ type: "string" }, { type: "number" }], items: false }, ["a", 1], true],
  ["prefixItems extra refused", { prefixItems: [{ type: "string" }], items: false }, ["a", 1], false],
  ["prefixItems short ok", { prefixItems: [{ type: "string" }, { type: "number" }] }, ["a"], true],
  ["draft-07 tuple ok", { items: [{ type: "string" }], additionalItems: false }, ["a"], true, "07"],
  ["draft-07 tuple extra", { items: [{ type: "string" }], additionalItems: false }, ["a", 1], false, "07"],
  ["minItems", { minItems: 2 }, [1], false],
  ["maxItems", { maxItems: 2 }, [1, 2, 3], false],
  ["uniqueItems ok", { uniqueItems: true }, [1, "1", [1]], true],
  [
    "uniqueItems deep dup",
    { uniqueItems: true },
    [
      { a: 1, b: 2 },
      { b: 2, a: 1 },
    ],
    false,
  ],
  ["contains", { contains: { const: 3 } }, [1, 2], false],
  ["minLength code points", { minLength: 2 }, "💩", false],
  ["maxLength code points", { maxLength: 1 }, "💩", true],
  ["maxLength bad", { maxLength: 3 }, "abcd", false],
  ["pattern ok", { pattern: "^[a-z]+$" }, "abc", true],
  ["pattern bad", { pattern: "^[a-z]+$" }, "abC", false],
  ["pattern unanchored", { pattern: "b" }, "abc", true],
  ["pattern ignores numbers", { pattern: "^a$" }, 5, true],
  ["minimum edge", { minimum: 1 }, 1, true],
  ["minimum bad", { minimum: 1 }, 0.5, false],
  ["maximum bad", { maximum: 10 }, 11, false],
  ["exclusiveMinimum edge", { exclusiveMinimum: 1 }, 1, false],
  ["exclusiveMaximum ok", { exclusiveMaximum: 1 }, 0.99, true],
  ["multipleOf int ok", { multipleOf: 5 }, 15, true],
  ["multipleOf int bad", { multipleOf: 5 }, 12, false],
  ["multipleOf 0.5", { multipleOf: 0.5 }, 2.5, true],
  ["anyOf ok", { anyOf: [{ type: "string" }, { type: "number" }] }, 1, true],
  ["anyOf bad", { anyOf: [{ type: "string" }, { type: "number" }] }, null, false],
  ["oneOf both match", { oneOf: [{ type: "number" }, { type: "integer" }] }, 1, false],
  ["oneOf one match", { oneOf: [{ type: "number" }, { type: "integer" }] }, 1.5, true],
  ["allOf bad", { allOf: [{ minimum: 1 }, { maximum: 2 }] }, 3, false],
  ["not ok", { not: { type: "string" } }, 1, true],
  ["not bad", { not: { type: "string" } }, "s", false],
  ["$ref $defs ok", tree, { v: 1, kids: [{ v: 2, kids: [{ v: 3 }] }] }, true],
  ["$ref recursive bad", tree, { v: 1, kids: [{ v: 2, kids: [{ v: "3" }] }] }, false],
  [
    "$ref definitions draft-07",
    { definitions: { s: { type: "string" } }, properties: { a: { $ref: "#/definitions/s" } } },
    { a: 1 },
    false,
    "07",
  ],
  [
    "$ref root recursion",
    { type: "object", properties: { next: { $ref: "#" } }, additionalProperties: false },
    { next: { next: {} } },
    true,
  ],
  ["$ref with siblings (2020)", { $defs: { s: { type: "string" } }, $ref: "#/$defs/s", minLength: 3 }, "ab", false],
  ["boolean false subschema", { properties: { a: false } }, { a: 1 }, false],
  ["boolean true subschema", { properties: { a: true } }, { a: 1 }, true],
  ["format ignored", { type: "string", format: "email" }, "not an email", true],
  ["unknown keyword ignored", { type: "string", "x-anything": 1 }, "s", true],
  ["if/then", { if: { properties: { k: { const: "n" } } }, then: { required: ["n"] } }, { k: "n" }, false],
  ["dependentRequired", { dependentRequired: { a: ["b"] } }, { a: 1 }, false],
  [
    "tool schema: nested array of objects",
    {
      type: "object",
      properties: { edits: { type: "array", items: { type: "object", properties: { line: { type: "integer" } }, required: ["line"] } } },
    },
    { edits: [{ line: 1 }, {}] },
    false,
  ],
];

describe("validateJsonSchema agrees with ajv", () => {
  test("the table is large enough", () => expect(rows.length).toBeGreaterThanOrEqual(60));
  for (const [name, schema, value, valid, draft] of rows) {
    test(name, () => {
      const oracle = (draft === "07" ? ajv07 : ajv2020).validate(schema, value);
      expect(oracle).toBe(valid);
      expect(validateJsonSchema(schema, value).valid).toBe(valid);
    });
  }
});

describe("validateJsonSchema errors", () => {
  test("name the JSON path of each failure", () => {
    const r = validateJsonSchema(
      {
        type: "object",
        properties: { items: { type: "array", items: { type: "object", properties: { "odd key": { type: "string" } } } } },
      },
      { items: [{ "odd key": "ok" }, { "odd key": 2 }] },
    );
    expect(r).toEqual({ valid: false, errors: ['$.items[1]["odd key"]: expected string, got integer'] });
  });

  test("report every failing keyword, required and additional properties included", () => {
    const r = validateJsonSchema(person, { age: "x", extra: true });
    expect(r.valid).toBe(false);
    if (r.valid) return;
    expect(r.errors).toContain("$.name: is required");
    expect(r.errors).toContain("$.age: expected integer, got string");
    expect(r.errors).toContain("$.extra: is not an allowed property");
  });

  test("a broken schema yields errors, never a throw", () => {
    expect(validateJsonSchema({ pattern: "(" }, "x").valid).toBe(false);
    expect(validateJsonSchema({ $defs: { a: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" }, 1)).toEqual({
      valid: false,
      errors: ["$: schema or value nested too deeply to validate"],
    });
    expect(validateJsonSchema({ $ref: "#/constructor" }, 1).valid).toBe(false);
    const r = validateJsonSchema({ $ref: "#/$defs/missing" }, 1);
    expect(r).toEqual({ valid: false, errors: ["$: cannot resolve $ref #/$defs/missing"] });
  });

  test("multipleOf tolerates binary floating point where ajv does not (documented difference)", () => {
    expect(ajv2020.validate({ multipleOf: 0.01 }, 0.07)).toBe(false);
    expect(validateJsonSchema({ multipleOf: 0.01 }, 0.07).valid).toBe(true);
    expect(validateJsonSchema({ multipleOf: 0.01 }, 0.075).valid).toBe(false);
  });

  test("a schema compiled once gives the same answers on reuse", () => {
    const schema = { type: "object", properties: { n: { type: "integer" } } };
    for (let i = 0; i < 1000; i++) expect(validateJsonSchema(schema, { n: i % 2 ? i : `${i}` }).valid).toBe(i % 2 === 1);
  });

  test("errors are capped so a huge invalid value stays cheap to report", () => {
    const r = validateJsonSchema(
      { items: { type: "string" } },
      Array.from({ length: 500 }, (_, i) => i),
    );
    expect(r.valid).toBe(false);
    if (!r.valid) expect(r.errors.length).toBe(20);
  });
});

describe("one validation does not leak into the next", () => {
  test("errors are the value's own, their list is the caller's, and a valid value after an invalid one is valid", () => {
    const schema = { type: "object", properties: { n: { type: "integer" }, s: { type: "string" } }, required: ["n"] };
    const first = validateJsonSchema(schema, { n: "x", s: 1 });
    expect(first).toEqual({ valid: false, errors: ["$.n: expected integer, got string", "$.s: expected string, got integer"] });
    expect(validateJsonSchema(schema, { n: 1 })).toEqual({ valid: true });
    const second = validateJsonSchema(schema, {});
    expect(second).toEqual({ valid: false, errors: ["$.n: is required"] });
    // The first answer's list was not reused by the later validations.
    expect(first.valid ? [] : first.errors).toHaveLength(2);
    expect(validateJsonSchema({ anyOf: [{ type: "string" }, { type: "number" }] }, 3)).toEqual({ valid: true });
    expect(validateJsonSchema({ type: "string" }, "ok")).toEqual({ valid: true });
  });
});

describe("validations in turn, each by its own schema", () => {
  test("schemas validated alternately (the last one is looked up first) each judge by their own keywords", () => {
    const text = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
    const count = { type: "object", properties: { text: { type: "integer" } }, required: ["text"] };
    for (let i = 0; i < 3; i++) {
      expect(validateJsonSchema(text, { text: "a" })).toEqual({ valid: true });
      expect(validateJsonSchema(count, { text: "a" })).toEqual({ valid: false, errors: ["$.text: expected integer, got string"] });
      expect(validateJsonSchema(count, { text: 2 })).toEqual({ valid: true });
      expect(validateJsonSchema(text, { text: 2 })).toEqual({ valid: false, errors: ["$.text: expected string, got integer"] });
    }
  });

  test("a property's path reads the same at the root and nested, plain names and others", () => {
    const inner = { type: "object", properties: { a: { type: "string" }, "odd key": { type: "string" }, "2": { type: "string" } } };
    const schema = { ...inner, properties: { ...inner.properties, o: inner } };
    const bad = { a: 1, "odd key": 1, "2": 1 };
    const r = validateJsonSchema(schema, { ...bad, o: bad });
    expect(r.valid ? [] : [...r.errors].sort()).toEqual(
      [
        '$.o["2"]: expected string, got integer',
        '$.o["odd key"]: expected string, got integer',
        "$.o.a: expected string, got integer",
        '$["2"]: expected string, got integer',
        '$["odd key"]: expected string, got integer',
        "$.a: expected string, got integer",
      ].sort(),
    );
  });
});
