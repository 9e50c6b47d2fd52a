/**
 * Compile a valibot schema into a fast yes/no check with the same verdict, for the hot path.
 *
 * Why: a valibot parse copies every object it validates (a loose object's output is a fresh object) and
 * walks the schema through generic, megamorphic calls; on small messages that costs as much as JSON.parse.
 * Valid messages are the common case, so the codec runs this allocation-free predicate first and returns
 * the input itself; only a message that fails goes through `v.safeParse`, whose issues make the error.
 *
 * The predicate is generated JavaScript (one straight-line function per schema node, as ajv does), built
 * only from our own static schemas: property names and literals are embedded with `JSON.stringify`, never
 * from input. valibot stays the one source of truth: the code is derived from the schema tree, any node or
 * action it does not model is delegated to `v.is`, and the oracle tests check that both verdicts agree over
 * the corpus and thousands of mutations of it.
 */
import * as v from "valibot";

/** A compiled check: true when valibot would accept `input`. */
export type Check = (input: unknown) => boolean;

type Node = {
  type: string;
  pipe?: readonly { type: string; kind: string; requirement?: unknown }[];
  entries?: Record<string, Node>;
  options?: readonly unknown[];
  item?: Node;
  wrapped?: Node;
  value?: Node;
  literal?: unknown;
  key?: string;
  default?: unknown;
};

const OPTIONAL = new Set(["optional", "nullish", "exact_optional"]);
const lit = (x: unknown) => JSON.stringify(x);
const isJsonLiteral = (x: unknown) => typeof x === "string" || typeof x === "boolean" || (typeof x === "number" && Number.isFinite(x));

const hasActions = (node: Node): boolean => node.pipe !== undefined && node.pipe.length > 1;

/** The expression JSON objects need: arrays are rejected as in open-object.ts. */
const objectExpr = (value: string) => `(typeof ${value} === "object" && ${value} !== null && !Array.isArray(${value}))`;

/** True when `node` surely rejects `undefined` (conservative: false when unsure). A pipe only narrows. */
function rejectsUndefined(node: Node): boolean {
  switch (node.type) {
    case "string":
    case "number":
    case "boolean":
    case "array":
    case "record":
    case "loose_object":
    case "object":
    case "strict_object":
    case "variant":
      return true;
    case "literal":
      return node.literal !== undefined;
    case "picklist":
      return (node.options ?? []).every((o) => o !== undefined);
    case "union":
      return (node.options as Node[]).every(rejectsUndefined);
  }
  return false;
}

/** Generates the functions of one schema tree. */
class Generator {
  private readonly names = new Map<Node, string>();
  readonly functions: string[] = [];
  /** Schemas whose verdict is delegated to `v.is` (`S[i]`). */
  readonly delegated: v.GenericSchema[] = [];

  /**
   * An expression that is true when `value` satisfies `node`. `value` is a JS expression without side
   * effects (a local, or a property or index read of one), so it may appear more than once.
   */
  expr(node: Node, value: string): string {
    const base = this.baseExpr(node, value);
    if (base === undefined) return `${this.fn(node)}(${value})`;
    const actions = node.pipe?.slice(1) ?? [];
    if (actions.length === 0) return base;
    const parts = [base];
    for (const a of actions) {
      if (a.type === "integer") parts.push(`Number.isInteger(${value})`);
      else if (a.type === "min_value" && isJsonLiteral(a.requirement)) parts.push(`${value} >= ${lit(a.requirement)}`);
      else if (a.type === "max_value" && isJsonLiteral(a.requirement)) parts.push(`${value} <= ${lit(a.requirement)}`);
      else return this.delegate(node, value);
    }
    return `(${parts.join(" && ")})`;
  }

  /** Inline expressions for leaf nodes; undefined for nodes that get a function. */
  private baseExpr(node: Node, value: string): string | undefined {
    switch (node.type) {
      case "string":
        return `typeof ${value} === "string"`;
      case "number":
        return `(typeof ${value} === "number" && ${value} === ${value})`; // valibot rejects NaN
      case "boolean":
        return `typeof ${value} === "boolean"`;
      case "unknown":
        return "true";
      case "literal":
        return isJsonLiteral(node.literal) ? `${value} === ${lit(node.literal)}` : this.delegate(node, value);
      case "picklist":
        return (node.options ?? []).every(isJsonLiteral)
          ? `(${(node.options ?? []).map((o) => `${value} === ${lit(o)}`).join(" || ")})`
          : this.delegate(node, value);
      case "loose_object":
        // `{}` in a schema (an open object with no known fields, e.g. a capability): only the type to check.
        return this.inlineable(node) ? objectExpr(value) : undefined;
      case "record":
        // A record of any JSON value (`_meta`, tool `arguments`) has nothing to check per key: skip the loop.
        return this.inlineable(node) ? objectExpr(value) : undefined;
      case "optional":
        // Inlined only around an inline check: a call per optional field was a share of every message's cost.
        return this.inlineable(node) ? `(${value} === undefined || ${this.expr(node.wrapped as Node, value)})` : undefined;
      case "union":
        return this.inlineable(node) ? `(${(node.options as Node[]).map((o) => this.expr(o, value)).join(" || ")})` : undefined;
    }
    return undefined;
  }

  /** Whether `expr` of `node` is an inline expression (no generated function behind it). */
  private inlineable(node: Node): boolean {
    switch (node.type) {
      case "string":
      case "number":
      case "boolean":
      case "unknown":
      case "literal":
      case "picklist":
        return true;
      case "record":
        return !hasActions(node) && (node.value as Node).type === "unknown" && !hasActions(node.value as Node);
      case "loose_object":
        return !hasActions(node) && Object.keys(node.entries ?? {}).length === 0;
      case "optional":
        return node.default === undefined && !hasActions(node) && this.inlineable(node.wrapped as Node);
      case "union":
        return !hasActions(node) && (node.options as Node[]).every((o) => this.inlineable(o));
    }
    return false;
  }

  private delegate(node: Node, value: string): string {
    this.delegated.push(node as unknown as v.GenericSchema);
    return `is(S[${this.delegated.length - 1}], ${value})`;
  }

  /** The name of the generated function checking `node` (generated once per node). */
  fn(node: Node): string {
    const known = this.names.get(node);
    if (known !== undefined) return known;
    const name = `f${this.names.size}`;
    this.names.set(node, name);
    this.functions.push(`function ${name}(x) {\n${this.body(node)}\n}`);
    return name;
  }

  private body(node: Node): string {
    if (node.pipe !== undefined && node.pipe.length > 1) return `return ${this.delegate(node, "x")};`;
    switch (node.type) {
      case "optional":
      case "nullable":
      case "nullish": {
        if (node.default !== undefined) break; // defaults change the output: let valibot decide
        const inner = this.expr(node.wrapped as Node, "x");
        const empty = node.type === "optional" ? "x === undefined" : node.type === "nullable" ? "x === null" : "x == null";
        return `return ${empty} || ${inner};`;
      }
      case "array":
        return `if (!Array.isArray(x)) return false;\nfor (let i = 0; i < x.length; i++) if (!(${this.expr(node.item as Node, "x[i]")})) return false;\nreturn true;`;
      case "union":
        return `return ${(node.options as Node[]).map((o) => this.expr(o, "x")).join(" || ")};`;
      case "record":
        if (this.inlineable(node)) return `return ${objectExpr("x")};`;
        // Our records (open-object.ts) have string keys and reject arrays; valibot skips these three keys.
        return [
          `if (typeof x !== "object" || x === null || Array.isArray(x)) return false;`,
          `for (const k in x) {`,
          `  if (!Object.hasOwn(x, k) || k === "__proto__" || k === "prototype" || k === "constructor") continue;`,
          `  const v = x[k];`,
          `  if (!(${this.expr(node.value as Node, "v")})) return false;`,
          `}`,
          `return true;`,
        ].join("\n");
      case "loose_object":
        return this.inlineable(node) ? `return ${objectExpr("x")};` : this.looseObject(node);
      case "variant":
        return this.variant(node);
      default:
        if (this.baseExpr(node, "x") !== undefined) return `return ${this.expr(node, "x")};`;
    }
    return `return ${this.delegate(node, "x")};`;
  }

  private looseObject(node: Node): string {
    // Arrays are rejected: every loose object here comes from open-object.ts.
    const lines = [`if (typeof x !== "object" || x === null || Array.isArray(x)) return false;`];
    let i = 0;
    for (const [key, entry] of Object.entries(node.entries ?? {})) {
      const k = lit(key);
      const a = `a${i++}`;
      // Defaults and fallbacks change the output (valibot fills them in): let valibot decide.
      if ((entry as { fallback?: unknown }).fallback !== undefined || (OPTIONAL.has(entry.type) && entry.default !== undefined))
        return `return ${this.delegate(node, "x")};`;
      // A key that is absent reads as undefined (these are plain data objects), so where the check of an
      // absent key's `undefined` gives valibot's verdict, one read replaces the `in` test and the read.
      if (entry.type === "optional" && !hasActions(entry))
        lines.push(`const ${a} = x[${k}];`, `if (${a} !== undefined && !(${this.expr(entry.wrapped as Node, a)})) return false;`);
      else if (OPTIONAL.has(entry.type)) lines.push(`if (${k} in x && !(${this.expr(entry, `x[${k}]`)})) return false;`);
      else if (rejectsUndefined(entry)) lines.push(`const ${a} = x[${k}];`, `if (!(${this.expr(entry, a)})) return false;`);
      else {
        const check = this.expr(entry, `x[${k}]`);
        lines.push(check === "true" ? `if (!(${k} in x)) return false;` : `if (!(${k} in x) || !(${check})) return false;`);
      }
    }
    lines.push("return true;");
    return lines.join("\n");
  }

  private variant(node: Node): string {
    const k = lit(node.key);
    const options = node.options as Node[];
    const tags = options.map((o) => (o.type === "variant" ? undefined : o.entries?.[node.key as string]));
    const literal = (d: Node | undefined) => d !== undefined && d.type === "literal" && !hasActions(d) && isJsonLiteral(d.literal);
    if (tags.every(literal) && new Set(tags.map((d) => d?.literal)).size === tags.length) {
      // Every option is told apart by a distinct literal: at most one can match, so valibot's try-each-option
      // reduces to one switch on the tag (a missing tag reads undefined and matches no JSON literal).
      const cases = options.map((o, j) => `  case ${lit(tags[j]?.literal)}: return ${this.expr(o, "x")};`);
      return [
        `if (typeof x !== "object" || x === null) return false;`,
        `switch (x[${k}]) {`,
        ...cases,
        `  default: return false;`,
        `}`,
      ].join("\n");
    }
    const lines = [`if (typeof x !== "object" || x === null) return false;`, `const d = x[${k}], has = ${k} in x;`];
    for (const option of node.options as Node[]) {
      const discriminator = option.entries?.[node.key as string];
      if (option.type === "variant" || discriminator === undefined) return `return ${this.delegate(node, "x")};`;
      const fits = OPTIONAL.has(discriminator.type)
        ? `(!has || ${this.expr(discriminator, "d")})`
        : `(has && ${this.expr(discriminator, "d")})`;
      lines.push(`if (${fits} && ${this.expr(option, "x")}) return true;`);
    }
    lines.push("return false;");
    return lines.join("\n");
  }
}

const compiled = new WeakMap<object, Check>();

/** The fast check of `schema` (generated once per schema object). */
export function compileCheck(schema: v.GenericSchema): Check {
  let check = compiled.get(schema);
  if (check === undefined) {
    const gen = new Generator();
    const root = gen.fn(schema as unknown as Node);
    const source = `${gen.functions.join("\n")}\nreturn ${root};`;
    check = new Function("is", "S", source)(v.is, gen.delegated) as Check;
    compiled.set(schema, check);
  }
  return check;
}
