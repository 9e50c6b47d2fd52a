/**
 * A compact JSON Schema validator for the subset tool input schemas and structured outputs use
 * (draft 2020-12 and draft-07 keywords). Internal: the loop checks model-proposed tool arguments with it
 * and the MCP server checks inbound tool arguments.
 *
 * Each schema is compiled once into a tree of closures, cached by object identity, so validating the
 * same tool's arguments again costs only the checks. Unknown keywords and `format` are ignored (as the
 * spec allows for annotations); `$ref` resolves JSON pointers inside the root schema only.
 *
 * Why not ajv (the oracle of this file's tests): the schemas checked here arrive from MCP servers and
 * models, i.e. untrusted, and ajv's own security notes ask that schemas be as trusted as application code,
 * because it compiles each one to JavaScript source with `new Function`. A tree of closures over the
 * subset tools use keeps untrusted input as data.
 *
 * One deliberate difference from ajv: `multipleOf` tolerates binary floating-point error
 * (`0.07` is a multiple of `0.01`), because models write decimals and a strict check would refuse them.
 */

/** The outcome of a validation: errors are data, each naming the JSON path it is about (`$.a[0]`). */
export type JsonSchemaResult = { valid: true } | { valid: false; errors: string[] };

type Json = unknown;
type Schema = Record<string, unknown> | boolean;
/** A compiled check: true when `v` is valid; pushes messages into `out` otherwise. */
type Check = (v: Json, path: string, out: string[]) => boolean;

/** Cap so a hostile value cannot make error reporting the expensive part. */
const MAX_ERRORS = 20;
const cache = new WeakMap<object, Check>();

/** Validate `value` against `schema`. Never throws: a broken schema yields errors too. */
export function validateJsonSchema(schema: object, value: unknown): JsonSchemaResult {
  // The schema of the last validation first (one tool called again and again): an identity test, no lookup.
  let check = schema === lastSchema ? lastCheck : cache.get(schema);
  if (!check) {
    check = new Compiler(schema as Record<string, unknown>).compile(schema as Schema, "#");
    cache.set(schema, check);
  }
  lastSchema = schema;
  lastCheck = check;
  // One scratch list for every validation (checks never validate re-entrantly), emptied after each: a valid
  // value, the usual case, then allocates nothing here, and its answer is one frozen object.
  const errors = scratch;
  let ok: boolean;
  try {
    ok = check(value, "$", errors);
  } catch (e) {
    errors.length = 0;
    // A `$ref` loop that consumes no data, or a value nested deeper than the stack: refuse, never throw.
    if (!(e instanceof RangeError)) throw e;
    return { valid: false, errors: ["$: schema or value nested too deeply to validate"] };
  }
  const found = ok ? undefined : errors.slice(0, MAX_ERRORS);
  errors.length = 0;
  return found === undefined ? VALID : { valid: false, errors: found };
}

let lastSchema: object | undefined;
let lastCheck: Check | undefined;

/** The answer for every valid value (shared, so frozen). */
const VALID: JsonSchemaResult = Object.freeze({ valid: true });
const scratch: string[] = [];

/** Append a property or index to a display path: `$.name`, `$["odd key"]`, `$[3]`. */
const at = (path: string, key: string | number): string =>
  typeof key === "number" ? `${path}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;

const typeOf = (v: Json): string => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);

const isObject = (v: Json): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

const hasType = (v: Json, t: string): boolean => {
  switch (t) {
    case "integer":
      return Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "object":
      return isObject(v);
    case "array":
      return Array.isArray(v);
    case "null":
      return v === null;
    default:
      return typeof v === t;
  }
};

/** Structural equality for enum, const and uniqueItems (object key order does not matter). */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as Json[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ka = Object.keys(a);
  const bo = b as Record<string, Json>;
  return ka.length === Object.keys(bo).length && ka.every((k) => k in bo && jsonEqual((a as Record<string, Json>)[k], bo[k]));
}

/** Length in Unicode code points, as JSON Schema counts string length. */
const codePoints = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
};

const isMultiple = (v: number, m: number): boolean => {
  const q = v / m;
  return Number.isInteger(q) || Math.abs(q - Math.round(q)) <= 1e-9 * Math.max(1, Math.abs(q));
};

const asObject = (x: unknown): Record<string, unknown> => (isObject(x) ? x : {});
const num = (x: unknown): number | undefined => (typeof x === "number" ? x : undefined);
const show = (x: Json): string => {
  const s = JSON.stringify(x) ?? String(x);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/** Compiles one root schema; `$ref` targets are compiled lazily so recursive schemas terminate. */
class Compiler {
  private readonly compiled = new Map<object, Check>();
  constructor(private readonly root: Record<string, unknown>) {}

  compile(schema: Schema, where: string): Check {
    if (schema === true) return () => true;
    if (schema === false) return (_v, path, out) => (out.push(`${path}: no value is allowed here`), false);
    if (!isObject(schema)) return (_v, path, out) => (out.push(`${path}: invalid schema at ${where}`), false);
    const done = this.compiled.get(schema);
    if (done) return done;
    // Registered before compiling children, so a self-reference finds it (the slot is filled below).
    let checks: Check[] = [];
    const self: Check = (v, path, out) => {
      let ok = true;
      // Indexed, not `for…of`: this runs for every schema node of every validation.
      for (let i = 0; i < checks.length; i++) if (!(checks[i] as Check)(v, path, out)) ok = false;
      return ok;
    };
    this.compiled.set(schema, self);
    checks = this.keywords(schema, where);
    return checks.length === 1 ? (checks[0] as Check) : self;
  }

  private sub(s: unknown, where: string): Check {
    return this.compile(s as Schema, where);
  }

  private resolve(ref: string): Schema | undefined {
    if (!ref.startsWith("#")) return undefined;
    let node: unknown = this.root;
    let pointer: string;
    try {
      pointer = decodeURIComponent(ref.slice(1));
    } catch {
      return undefined;
    }
    if (pointer === "") return node as Schema;
    if (!pointer.startsWith("/")) return undefined;
    for (const raw of pointer.slice(1).split("/")) {
      const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
      node = (node as Record<string, unknown>)[key];
    }
    return typeof node === "boolean" || isObject(node) ? node : undefined;
  }

  private keywords(s: Record<string, unknown>, where: string): Check[] {
    const checks: Check[] = [];
    const add = (c: Check) => checks.push(c);

    if (typeof s.$ref === "string") {
      const ref = s.$ref;
      let target: Check | undefined;
      add((v, path, out) => {
        if (!target) {
          const t = this.resolve(ref);
          target = t === undefined ? (_v, p, o) => (o.push(`${p}: cannot resolve $ref ${ref}`), false) : this.compile(t, ref);
        }
        return target(v, path, out);
      });
    }
    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
      const expected = (v: Json, path: string, out: string[]) => (
        out.push(`${path}: expected ${types.join(" or ")}, got ${typeOf(v)}`), false
      );
      // One type (the usual schema) is checked without a closure per validation.
      const only = types.length === 1 ? types[0] : undefined;
      if (only !== undefined) add((v, path, out) => hasType(v, only) || expected(v, path, out));
      else add((v, path, out) => types.some((t) => hasType(v, t)) || expected(v, path, out));
    }
    if (Array.isArray(s.enum)) {
      const options = s.enum as Json[];
      add((v, path, out) => options.some((o) => jsonEqual(o, v)) || (out.push(`${path}: must be one of ${show(options)}`), false));
    }
    if ("const" in s) {
      const c = s.const;
      add((v, path, out) => jsonEqual(c, v) || (out.push(`${path}: must equal ${show(c)}`), false));
    }
    this.numberKeywords(s, add);
    this.stringKeywords(s, where, add);
    this.arrayKeywords(s, where, add);
    this.objectKeywords(s, where, add);
    this.combinators(s, where, add);
    return checks;
  }

  private numberKeywords(s: Record<string, unknown>, add: (c: Check) => void): void {
    const bound = (limit: number | undefined, fails: (v: number, l: number) => boolean, text: string) => {
      if (limit === undefined) return;
      add((v, path, out) => typeof v !== "number" || !fails(v, limit) || (out.push(`${path}: must be ${text} ${limit}`), false));
    };
    // Draft-04 wrote exclusivity as a boolean beside minimum/maximum; honour it rather than ignore it.
    const exMin = s.exclusiveMinimum === true,
      exMax = s.exclusiveMaximum === true;
    bound(num(s.minimum), exMin ? (v, l) => v <= l : (v, l) => v < l, exMin ? ">" : ">=");
    bound(num(s.maximum), exMax ? (v, l) => v >= l : (v, l) => v > l, exMax ? "<" : "<=");
    bound(num(s.exclusiveMinimum), (v, l) => v <= l, ">");
    bound(num(s.exclusiveMaximum), (v, l) => v >= l, "<");
    const m = num(s.multipleOf);
    if (m !== undefined && m > 0)
      add((v, path, out) => typeof v !== "number" || isMultiple(v, m) || (out.push(`${path}: must be a multiple of ${m}`), false));
  }

  private stringKeywords(s: Record<string, unknown>, where: string, add: (c: Check) => void): void {
    const min = num(s.minLength),
      max = num(s.maxLength);
    if (min !== undefined || max !== undefined)
      add((v, path, out) => {
        if (typeof v !== "string") return true;
        const n = codePoints(v);
        if (min !== undefined && n < min) return (out.push(`${path}: must have at least ${min} characters`), false);
        if (max !== undefined && n > max) return (out.push(`${path}: must have at most ${max} characters`), false);
        return true;
      });
    if (typeof s.pattern === "string") {
      const source = s.pattern;
      const re = this.regex(source);
      add((v, path, out) => {
        if (typeof v !== "string") return true;
        if (!re) return (out.push(`${path}: invalid pattern ${show(source)} in schema at ${where}`), false);
        return re.test(v) || (out.push(`${path}: must match pattern ${show(source)}`), false);
      });
    }
  }

  private regex(source: string): RegExp | undefined {
    try {
      return new RegExp(source, "u");
    } catch {
      return undefined;
    }
  }

  private arrayKeywords(s: Record<string, unknown>, where: string, add: (c: Check) => void): void {
    // Draft-07 tuples: `items` as an array with `additionalItems`; 2020-12: `prefixItems` then `items`.
    const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
    const prefix = (tuple ?? []).map((x, i) => this.sub(x, `${where}/prefixItems/${i}`));
    const restSchema = Array.isArray(s.items) ? s.additionalItems : s.items;
    const rest = restSchema === undefined ? undefined : this.sub(restSchema, `${where}/items`);
    const contains = s.contains === undefined ? undefined : this.sub(s.contains, `${where}/contains`);
    const minItems = num(s.minItems),
      maxItems = num(s.maxItems),
      unique = s.uniqueItems === true;
    const minContains = num(s.minContains) ?? 1,
      maxContains = num(s.maxContains);
    if (!prefix.length && !rest && !contains && minItems === undefined && maxItems === undefined && !unique) return;
    add((v, path, out) => {
      if (!Array.isArray(v)) return true;
      let ok = true;
      const fail = (m: string) => ((ok = false), out.push(m));
      if (minItems !== undefined && v.length < minItems) fail(`${path}: must have at least ${minItems} items`);
      if (maxItems !== undefined && v.length > maxItems) fail(`${path}: must have at most ${maxItems} items`);
      v.forEach((item, i) => {
        const c = i < prefix.length ? prefix[i] : rest;
        if (c && !c(item, at(path, i), out)) ok = false;
      });
      if (unique)
        for (let i = 1; i < v.length; i++)
          for (let j = 0; j < i; j++)
            if (jsonEqual(v[i], v[j])) {
              fail(`${path}: items ${j} and ${i} are equal; items must be unique`);
              i = v.length;
              break;
            }
      if (contains) {
        const n = v.filter((item) => contains(item, path, [])).length;
        if (n < minContains) fail(`${path}: must contain at least ${minContains} matching item(s)`);
        if (maxContains !== undefined && n > maxContains) fail(`${path}: must contain at most ${maxContains} matching item(s)`);
      }
      return ok;
    });
  }

  private objectKeywords(s: Record<string, unknown>, where: string, add: (c: Check) => void): void {
    const props = isObject(s.properties) ? Object.entries(s.properties) : [];
    // Paths are formatted once here, not on every validation: a suffix, and the whole path at the root (`$.k`).
    const named = new Map(
      props.map(([k, x]) => [k, { check: this.sub(x, `${where}/properties/${k}`), suffix: at("", k), atRoot: at("$", k) }]),
    );
    const patterns = isObject(s.patternProperties)
      ? Object.entries(s.patternProperties).map(([p, x]) => ({ p, re: this.regex(p), check: this.sub(x, `${where}/patternProperties`) }))
      : [];
    const additional = s.additionalProperties === undefined ? undefined : this.sub(s.additionalProperties, `${where}/additionalProperties`);
    const names = s.propertyNames === undefined ? undefined : this.sub(s.propertyNames, `${where}/propertyNames`);
    const required = Array.isArray(s.required) ? (s.required as string[]) : [];
    const minP = num(s.minProperties),
      maxP = num(s.maxProperties);
    // `dependencies` (draft-07) split into dependentRequired / dependentSchemas in 2019-09.
    const deps = Object.entries({ ...asObject(s.dependencies), ...asObject(s.dependentRequired), ...asObject(s.dependentSchemas) }).map(
      ([k, d]) => ({
        k,
        names: Array.isArray(d) ? (d as string[]) : undefined,
        check: Array.isArray(d) ? undefined : this.sub(d, `${where}/dependentSchemas/${k}`),
      }),
    );
    if (
      !named.size &&
      !patterns.length &&
      !additional &&
      !names &&
      !required.length &&
      !deps.length &&
      minP === undefined &&
      maxP === undefined
    )
      return;
    add((v, path, out) => {
      if (!isObject(v)) return true;
      let ok = true;
      // Indexed loops, and no path built for a property that has its own: this runs on every tool call.
      for (let i = 0; i < required.length; i++) {
        const k = required[i] as string;
        if (!Object.hasOwn(v, k)) (ok = false), out.push(`${at(path, k)}: is required`);
      }
      for (let i = 0; i < deps.length; i++) {
        const d = deps[i] as (typeof deps)[number];
        if (!Object.hasOwn(v, d.k)) continue;
        for (const n of d.names ?? [])
          if (!Object.hasOwn(v, n)) (ok = false), out.push(`${at(path, n)}: is required when ${show(d.k)} is present`);
        if (d.check && !d.check(v, path, out)) ok = false;
      }
      const keys = Object.keys(v);
      if (minP !== undefined && keys.length < minP) (ok = false), out.push(`${path}: must have at least ${minP} properties`);
      if (maxP !== undefined && keys.length > maxP) (ok = false), out.push(`${path}: must have at most ${maxP} properties`);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        const entry = named.get(k);
        const p = entry ? (path === "$" ? entry.atRoot : path + entry.suffix) : at(path, k);
        if (names && !names(k, `${p} (name)`, out)) ok = false;
        let matched = false;
        if (entry) (matched = true), entry.check(v[k], p, out) || (ok = false);
        for (let j = 0; j < patterns.length; j++) {
          const pp = patterns[j] as (typeof patterns)[number];
          if (!pp.re) return (out.push(`${path}: invalid pattern ${show(pp.p)} in schema at ${where}`), false);
          if (pp.re.test(k)) (matched = true), pp.check(v[k], p, out) || (ok = false);
        }
        if (!matched && additional && !additional(v[k], p, out)) {
          ok = false;
          if (s.additionalProperties === false) out[out.length - 1] = `${p}: is not an allowed property`;
        }
      }
      return ok;
    });
  }

  private combinators(s: Record<string, unknown>, where: string, add: (c: Check) => void): void {
    const list = (k: string) => (Array.isArray(s[k]) ? (s[k] as unknown[]).map((x, i) => this.sub(x, `${where}/${k}/${i}`)) : undefined);
    const allOf = list("allOf"),
      anyOf = list("anyOf"),
      oneOf = list("oneOf");
    if (allOf) add((v, path, out) => allOf.map((c) => c(v, path, out)).every(Boolean));
    if (anyOf)
      add((v, path, out) => {
        const tried: string[] = [];
        if (anyOf.some((c) => c(v, path, tried))) return true;
        out.push(`${path}: must match at least one schema in anyOf (${tried.slice(0, 4).join("; ")})`);
        return false;
      });
    if (oneOf)
      add((v, path, out) => {
        const tried: string[] = [];
        const n = oneOf.filter((c) => c(v, path, tried)).length;
        if (n === 1) return true;
        out.push(
          n === 0
            ? `${path}: must match exactly one schema in oneOf (${tried.slice(0, 4).join("; ")})`
            : `${path}: matches ${n} schemas in oneOf; must match exactly one`,
        );
        return false;
      });
    if (s.not !== undefined) {
      const not = this.sub(s.not, `${where}/not`);
      add((v, path, out) => !not(v, path, []) || (out.push(`${path}: must not match the schema in "not"`), false));
    }
    if (s.if !== undefined) {
      const cond = this.sub(s.if, `${where}/if`);
      const then = s.then === undefined ? undefined : this.sub(s.then, `${where}/then`);
      const otherwise = s.else === undefined ? undefined : this.sub(s.else, `${where}/else`);
      add((v, path, out) => {
        const branch = cond(v, path, []) ? then : otherwise;
        return branch ? branch(v, path, out) : true;
      });
    }
  }
}
