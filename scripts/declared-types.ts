/**
 * Declared types for the SDK's public surface, generated from its valibot schemas: the MCP wire types
 * (`packages/sdk/src/wire/types/*.generated.ts`, one file per schema file) and the `agentd.json` shape
 * (`packages/sdk/src/config/types.generated.ts`, from the config group schemas `config/*-schema.ts`). Every file
 * it writes is named `*.generated.ts` (`*.generated.test.ts` for the equality checks) and opens with a line
 * naming this script.
 *
 * Why: a type inferred from a valibot schema (`v.InferOutput<typeof ToolSchema>`) keeps valibot's generic
 * machinery in the published declarations, and a consumer whose compiler checks libraries
 * (`skipLibCheck: false`) pays for it: valibot's own declarations and every inferred schema type (tens of
 * seconds; bench/types/type-check.ts). Plain interfaces cost next to nothing. The schemas stay the one
 * source of truth: this script walks the schema objects and prints the types they infer, taking each
 * type's doc comment (and the fields' comments) from the schema source; `*.generated.test.ts` beside the output
 * checks each declared type equal, both ways, to the valibot-inferred one (under \`bun run typecheck\`), and
 * \`declared-types.test.ts\` fails while a committed file is not what this script prints.
 *
 * Usage: bun scripts/declared-types.ts   (rewrites the files; run after a schema change, then `bun run format`)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dir, "..");
const SDK = join(ROOT, "packages", "sdk", "src");

/** A valibot schema object, as far as the printer reads it. */
type Schema = any;

/** Where a type is declared: an output file (by its path relative to the SDK's src) and its name. */
interface Named {
  name: string;
  file: string;
}

/** One output file being built. */
interface OutFile {
  path: string;
  header: string;
  blocks: string[];
  imports: Map<string, Set<string>>;
}

/** Doc comments of object fields, by path of field names inside one exported schema. */
type FieldDocs = Map<string, string>;

/** The comments of a node, as written (`/** … *\/`), re-indented to `indent`. */
function docOf(node: ts.Node, source: ts.SourceFile, indent = ""): string | undefined {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  if (docs.length === 0) return undefined;
  return docs
    .map((d) =>
      d
        .getText(source)
        .split("\n")
        .map((line, i) => (i === 0 ? indent + line.trim() : `${indent} ${line.trim()}`))
        .join("\n"),
    )
    .join("\n");
}

const OBJECT_CALLS = new Set(["v.strictObject", "v.looseObject", "v.object", "looseObject"]);

/** The field comments inside an exported schema's initializer: each object literal passed to an object call. */
function fieldDocsOf(init: ts.Expression, source: ts.SourceFile): FieldDocs {
  const docs: FieldDocs = new Map();
  const visit = (node: ts.Node, path: string[]) => {
    if (ts.isCallExpression(node) && OBJECT_CALLS.has(node.expression.getText(source))) {
      const arg = node.arguments[0];
      if (arg && ts.isObjectLiteralExpression(arg)) {
        for (const p of arg.properties) {
          if (!ts.isPropertyAssignment(p)) continue;
          const key = p.name.getText(source).replace(/^["']|["']$/g, "");
          const doc = docOf(p, source);
          const at = [...path, key];
          if (doc && !docs.has(at.join("."))) docs.set(at.join("."), doc);
          visit(p.initializer, at);
        }
        return;
      }
    }
    ts.forEachChild(node, (c) => visit(c, path));
  };
  visit(init, []);
  return docs;
}

/** A type alias of a schema file: `export type X = v.InferOutput<typeof XSchema>`, or a plain alias. */
interface SourceAlias {
  name: string;
  doc: string;
  /** The schema const it infers from, or undefined for a plain alias (`text`). */
  schema?: string;
  text?: string;
}

/** Exported type aliases and exported schema initializers of one source file. */
function readSource(file: string): { aliases: SourceAlias[]; inits: Map<string, { init: ts.Expression; source: ts.SourceFile }> } {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const aliases: SourceAlias[] = [];
  const inits = new Map<string, { init: ts.Expression; source: ts.SourceFile }>();
  for (const st of source.statements) {
    const exported = ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isTypeAliasDeclaration(st) && !st.typeParameters) {
      const doc = docOf(st, source) ?? `/** ${st.name.text}. */`;
      const t = st.type.getText(source);
      const m = /^v\.InferOutput<typeof (\w+)>$/.exec(t);
      if (m) aliases.push({ name: st.name.text, doc, schema: m[1] });
      else if (/^\w+$/.test(t)) aliases.push({ name: st.name.text, doc, text: t });
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.initializer) inits.set(d.name.text, { init: d.initializer, source });
    }
  }
  return { aliases, inits };
}

/** Prints valibot schemas as TypeScript types, naming the schemas that have a declared type. */
class Printer {
  readonly names = new Map<Schema, Named>();
  readonly overrides = new Map<Schema, { text: string; refs: Named[] }>();

  constructor(private readonly out: OutFile) {}

  private ref(n: Named): string {
    if (n.file !== this.out.path) {
      const set = this.out.imports.get(n.file) ?? new Set<string>();
      set.add(n.name);
      this.out.imports.set(n.file, set);
    }
    return n.name;
  }

  /** The output type of `s`; `top` prints the structure of a named schema instead of its name. */
  print(s: Schema, indent: string, docs: FieldDocs, path: string[], top = false): string {
    const named = this.names.get(s);
    if (named && !top) return this.ref(named);
    const override = this.overrides.get(s);
    if (override) {
      for (const r of override.refs) this.ref(r);
      return override.text;
    }
    if (Array.isArray(s.pipe)) {
      // A pipe's output is that of its last schema, unless an action after it transforms the value.
      for (let i = s.pipe.length - 1; i >= 0; i--) {
        const item = s.pipe[i];
        if (item.type === "transform") throw new Error(`a transform in a pipe needs an override (at ${path.join(".") || "top"})`);
        if (item.kind === "schema") return this.print(i === 0 ? { ...item, pipe: undefined } : item, indent, docs, path);
      }
    }
    switch (s.type) {
      case "string":
      case "number":
      case "boolean":
      case "unknown":
      case "never":
      case "null":
      case "undefined":
        return s.type;
      case "literal":
        return JSON.stringify(s.literal);
      case "picklist":
        return s.options.map((o: unknown) => JSON.stringify(o)).join(" | ");
      case "union":
      case "variant":
        return s.options.map((o: Schema) => this.print(o, indent, docs, path)).join(" | ");
      case "optional":
        return `${this.print(s.wrapped, indent, docs, path)} | undefined`;
      case "nullable":
        return `${this.print(s.wrapped, indent, docs, path)} | null`;
      case "nullish":
        return `${this.print(s.wrapped, indent, docs, path)} | null | undefined`;
      case "array": {
        const item = this.print(s.item, indent, docs, path);
        return /[|&]/.test(item) && !/^\{[\s\S]*\}$/.test(item) ? `(${item})[]` : `${item}[]`;
      }
      case "record":
        return `{ [key: string]: ${this.print(s.value, indent, docs, path)} }`;
      case "object":
      case "strict_object":
      case "loose_object":
        return this.object(s, indent, docs, path);
      default:
        throw new Error(`no printer for valibot schema type "${s.type}" (at ${path.join(".") || "top"})`);
    }
  }

  /** An object type: `{ field: T; optional?: T | undefined }`, open (`[key: string]: unknown`) when loose. */
  object(s: Schema, indent: string, docs: FieldDocs, path: string[]): string {
    const inner = `${indent}  `;
    const lines: string[] = [];
    for (const [key, entry] of Object.entries(s.entries as Record<string, Schema>)) {
      const at = [...path, key];
      const doc = docs.get(at.join("."));
      if (doc) lines.push(doc.replace(/^/gm, inner));
      const prop = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
      const optional = entry.type === "optional" && entry.default === undefined;
      const value = entry.type === "optional" ? entry.wrapped : entry;
      const printed = this.print(value, inner, docs, at);
      lines.push(
        optional ? `${inner}${prop}?: ${printed === "never" ? "undefined" : `${printed} | undefined`};` : `${inner}${prop}: ${printed};`,
      );
    }
    if (s.type === "loose_object") lines.push(`${inner}[key: string]: unknown;`);
    return lines.length === 0 ? "{}" : `{\n${lines.join("\n")}\n${indent}}`;
  }
}

/** A declared type: `interface` for an object, `type` otherwise. */
function declare(printer: Printer, name: string, doc: string, s: Schema, docs: FieldDocs): string {
  const body = printer.print(s, "", docs, [], true);
  const base = Array.isArray(s.pipe) ? s.pipe[s.pipe.length - 1 - [...s.pipe].reverse().findIndex((i: Schema) => i.kind === "schema")] : s;
  if (["object", "strict_object", "loose_object"].includes(base.type)) return `${doc}\nexport interface ${name} ${body}`;
  return `${doc}\nexport type ${name} = ${body};`;
}

/** The files as Biome formats them (the committed files are formatted, and must stay what this prints): one run over a temp copy. */
function formatted(files: Map<string, string>): Map<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "agentd-declared-"));
  try {
    const names = [...files.keys()];
    names.forEach((path, i) => writeFileSync(join(dir, `${i}.ts`), files.get(path) as string));
    const biome = join(ROOT, "node_modules", "@biomejs", "biome", "bin", "biome");
    const r = Bun.spawnSync([biome, "format", `--config-path=${join(ROOT, "biome.json")}`, "--write", dir], {
      stdout: "pipe",
      stderr: "pipe",
    });
    if (r.exitCode !== 0) throw new Error(`biome format: ${r.stdout.toString()}${r.stderr.toString()}`);
    return new Map(names.map((path, i) => [path, readFileSync(join(dir, `${i}.ts`), "utf8")]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function render(out: OutFile): string {
  const imports = [...out.imports]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, names]) => `import type { ${[...names].sort().join(", ")} } from "${relativeImport(out.path, file)}";`);
  return `${out.header}\n${imports.length ? `${imports.join("\n")}\n` : ""}\n${out.blocks.join("\n\n")}\n`;
}

function relativeImport(from: string, to: string): string {
  const a = from.split("/").slice(0, -1);
  const b = to.split("/");
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const up = a.length - i;
  return `${up === 0 ? "./" : "../".repeat(up)}${b.slice(i).join("/")}`;
}

const GENERATED = "Generated by scripts/declared-types.ts from the valibot schemas: do not edit (run it after a schema change).";

// ── The MCP wire types ──

/** Schema files, in dependency order, and the output file each one's types go to. */
const WIRE_FILES = [
  "base",
  "content",
  "capabilities",
  "lifecycle",
  "tools",
  "resources",
  "prompts",
  "completion",
  "logging",
  "sampling",
  "elicitation",
  "roots",
  "tasks",
  "tasks-extension",
  "methods-2026-07-28",
];

/** Schemas whose type is declared elsewhere (by hand), named where they are used. */
const WIRE_SEEDS: Array<[string, string, Named]> = [["base", "RequestIdSchema", { name: "RequestId", file: "wire/jsonrpc.ts" }]];

/** Every generated file: path relative to the SDK's src → text. */
export async function declaredTypesFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const names = new Map<Schema, Named>();
  const inferred: Array<{ file: string; name: string; schemaModule: string; schema: string }> = [];

  for (const [mod, schema, named] of WIRE_SEEDS) {
    const m = await import(join(SDK, "wire", "schemas", `${mod}.ts`));
    names.set(m[schema], named);
  }

  for (const stem of WIRE_FILES) {
    const schemaFile = join(SDK, "wire", "schemas", `${stem}.ts`);
    const mod = await import(schemaFile);
    const { aliases, inits } = readSource(schemaFile);
    const out: OutFile = {
      path: `wire/types/${stem}.generated.ts`,
      header: `/**\n * MCP types of \`wire/schemas/${stem}.ts\`, declared.\n * ${GENERATED}\n */`,
      blocks: [],
      imports: new Map(),
    };
    const printer = new Printer(out);
    for (const [k, v] of names) printer.names.set(k, v);
    for (const a of aliases) {
      if (a.text !== undefined) {
        const target = [...names.values()].find((n) => n.name === a.text);
        if (!target) throw new Error(`${stem}: alias ${a.name} = ${a.text} names no declared type`);
        out.blocks.push(`${a.doc}\nexport type ${a.name} = ${printer.print(findSchema(names, target), "", new Map(), [])};`);
        continue;
      }
      const s = mod[a.schema as string];
      if (s === undefined) throw new Error(`${stem}: ${a.schema} is not exported`);
      const already = names.get(s);
      if (already) {
        // A second name for the same schema (e.g. the three task-id params): an alias of the first.
        printer.names.set(s, already);
        out.blocks.push(`${a.doc}\nexport type ${a.name} = ${printer.print(s, "", new Map(), [])};`);
      } else {
        const init = inits.get(a.schema as string);
        const docs = init ? fieldDocsOf(init.init, init.source) : new Map();
        out.blocks.push(declare(printer, a.name, a.doc, s, docs));
        names.set(s, { name: a.name, file: out.path });
        printer.names.set(s, { name: a.name, file: out.path });
      }
      inferred.push({ file: out.path, name: a.name, schemaModule: `wire/schemas/${stem}.ts`, schema: a.schema as string });
    }
    files.set(out.path, render(out));
  }

  files.set("wire/types/methods-2025-11-25.generated.ts", await methodTypes(names));
  files.set("wire/types/declared.generated.test.ts", equalityTest("wire/types/declared.generated.test.ts", inferred, true));
  const config = await configTypes();
  files.set("config/types.generated.ts", config.text);
  files.set("config/types.generated.test.ts", equalityTest("config/types.generated.test.ts", config.inferred, false));
  return formatted(files);
}

function findSchema(names: Map<Schema, Named>, target: Named): Schema {
  for (const [s, n] of names) if (n === target) return s;
  throw new Error(`no schema for ${target.name}`);
}

/** The typed method maps of the latest handshake revision, from its method table. */
async function methodTypes(names: Map<Schema, Named>): Promise<string> {
  const { requests_2025_11_25, notifications_2025_11_25 } = await import(join(SDK, "wire", "schemas", "methods-2025-11-25.ts"));
  const out: OutFile = {
    path: "wire/types/methods-2025-11-25.generated.ts",
    header:
      "/**\n * The typed method maps of revision 2025-11-25 (`wire/schemas/methods-2025-11-25.ts`, declared): each request's sender,\n" +
      ' * params and result, each notification\'s sender and params. `RequestParamsOf<"tools/call">` and the like are what the\n' +
      ` * MCP layer codes against.\n * ${GENERATED}\n */`,
    blocks: [],
    imports: new Map(),
  };
  const printer = new Printer(out);
  for (const [k, v] of names) printer.names.set(k, v);
  const entry = (spec: Schema, withResult: boolean) => {
    const parts = [`from: ${JSON.stringify(spec.from)}`, `params: ${printer.print(spec.params, "  ", new Map(), [])}`];
    if (withResult) parts.push(`result: ${printer.print(spec.result, "  ", new Map(), [])}`);
    if (spec.taskAugmentable) parts.push("taskAugmentable: true");
    return `{ ${parts.join("; ")} }`;
  };
  const requests = Object.entries(requests_2025_11_25 as Record<string, Schema>).map(
    ([m, spec]) => `  ${JSON.stringify(m)}: ${entry(spec, true)};`,
  );
  const notifications = Object.entries(notifications_2025_11_25 as Record<string, Schema>).map(
    ([m, spec]) => `  ${JSON.stringify(m)}: ${entry(spec, false)};`,
  );
  out.blocks.push(`/** Every request method of 2025-11-25: who sends it, its params and its (non-task) result. */
export interface RequestTypes {
${requests.join("\n")}
}`);
  out.blocks.push(`/** Every notification method of 2025-11-25: who sends it and its params. */
export interface NotificationTypes {
${notifications.join("\n")}
}`);
  out.blocks.push(`/** A request method of the latest revision. */
export type RequestMethod = keyof RequestTypes;
/** A notification method of the latest revision. */
export type NotificationMethod = keyof NotificationTypes;
/** Request methods a client sends (the server handles). */
export type ClientRequestMethod = { [M in RequestMethod]: RequestTypes[M]["from"] extends "server" ? never : M }[RequestMethod];
/** Request methods a server sends (the client handles). */
export type ServerRequestMethod = { [M in RequestMethod]: RequestTypes[M]["from"] extends "client" ? never : M }[RequestMethod];
/** Notification methods a client sends. */
export type ClientNotificationMethod = {
  [M in NotificationMethod]: NotificationTypes[M]["from"] extends "server" ? never : M;
}[NotificationMethod];
/** Notification methods a server sends. */
export type ServerNotificationMethod = {
  [M in NotificationMethod]: NotificationTypes[M]["from"] extends "client" ? never : M;
}[NotificationMethod];
/** The params type of request \`M\`, e.g. \`RequestParamsOf<"tools/call">\` is \`CallToolRequestParams\`. */
export type RequestParamsOf<M extends RequestMethod> = RequestTypes[M]["params"];
/** The (non-task) result type of request \`M\`, e.g. \`ResultOf<"tools/call">\` is \`CallToolResult\`. */
export type ResultOf<M extends RequestMethod> = RequestTypes[M]["result"];
/** The params type of notification \`M\`. */
export type NotificationParamsOf<M extends NotificationMethod> = NotificationTypes[M]["params"];
/** Request methods whose answer may be a \`CreateTaskResult\` when \`params.task\` is set. */
export type TaskAugmentableMethod = {
  [M in RequestMethod]: RequestTypes[M] extends { taskAugmentable: true } ? M : never;
}[RequestMethod];`);
  return render(out);
}

// ── The agentd.json shape ──

/** Config schemas with a declared type: schema file (in config/, one a config group), schema const, type name. */
const CONFIG_TYPES: Array<[string, string, string]> = [
  ["model-schema", "ModelConfigSchema", "ModelConfig"],
  ["servers-schema", "SamplingConfigSchema", "SamplingConfig"],
  ["servers-schema", "ServerToolsSchema", "McpServerToolsConfig"],
  ["servers-schema", "StdioServerSchema", "StdioServerConfig"],
  ["servers-schema", "OAuthSchema", "McpServerOAuthConfig"],
  ["servers-schema", "HttpServerSchema", "HttpServerConfig"],
  ["servers-schema", "McpServerConfigSchema", "McpServerConfig"],
  ["servers-schema", "A2aAgentConfigSchema", "RemoteA2aAgentConfig"],
  ["limits-schema", "LimitsSchema", "LimitsConfig"],
  ["limits-schema", "ScopeSchema", "ScopeConfig"],
  ["triggers-schema", "SubscriptionTriggerSchema", "SubscriptionTriggerConfig"],
  ["triggers-schema", "ScheduleTriggerSchema", "ScheduleTriggerConfig"],
  ["triggers-schema", "IntervalTriggerSchema", "IntervalTriggerConfig"],
  ["triggers-schema", "TriggersSchema", "TriggersConfig"],
  ["serve-schema", "ServeSchema", "ServeConfig"],
  ["capabilities-schema", "CapabilitiesSchema", "CapabilitiesConfig"],
  ["durability-schema", "DurabilitySchema", "DurabilityConfig"],
  ["prompts-schema", "PromptArgumentConfigSchema", "PromptArgumentConfig"],
  ["prompts-schema", "PromptMessageConfigSchema", "PromptMessageConfig"],
  ["prompts-schema", "PromptConfigSchema", "PromptConfig"],
  ["approvals-schema", "ApprovalAnnotationsSchema", "ApprovalAnnotationsConfig"],
  ["approvals-schema", "ApprovalRuleConfigSchema", "ApprovalRuleConfig"],
  ["approvals-schema", "ApprovalsConfigSchema", "ApprovalsConfig"],
  ["schema", "ConfigSchema", "AgentdConfig"],
];

async function configTypes(): Promise<{
  text: string;
  inferred: Array<{ file: string; name: string; schemaModule: string; schema: string }>;
}> {
  const out: OutFile = {
    path: "config/types.generated.ts",
    header:
      "/**\n * The `agentd.json` shape as declared types: what `parseConfig` returns (durations in milliseconds). The schema\n" +
      ` * that checks a file is \`schema.ts\` (valibot); these are its output types.\n * ${GENERATED}\n */`,
    blocks: [],
    imports: new Map(),
  };
  const printer = new Printer(out);
  const modules: Record<string, Schema> = {};
  const sources: Record<string, ReturnType<typeof readSource>> = {};
  for (const stem of new Set(CONFIG_TYPES.map(([f]) => f))) {
    modules[stem] = await import(join(SDK, "config", `${stem}.ts`));
    sources[stem] = readSource(join(SDK, "config", `${stem}.ts`));
  }
  const model = modules["model-schema"];
  const servers = modules["servers-schema"];
  // A duration is written "30s" or 30000 and comes out of the parse as milliseconds.
  printer.overrides.set(model.ModelConfigSchema.entries.timeout.wrapped, { text: "number", refs: [] });
  // `versionNegotiation`: "legacy", the older spelling, comes out as "initialize".
  printer.overrides.set(servers.StdioServerSchema.entries.versionNegotiation.wrapped, { text: '"auto" | "initialize"', refs: [] });
  for (const [, name, type] of CONFIG_TYPES) {
    const s = modules[CONFIG_TYPES.find(([, n]) => n === name)?.[0] as string][name];
    printer.names.set(s, { name: type, file: out.path });
  }
  // A server entry is checked field by field, then by the stdio or the HTTP schema (a lazy choice).
  printer.overrides.set(servers.McpServerConfigSchema, { text: "StdioServerConfig | HttpServerConfig", refs: [] });
  const inferred: Array<{ file: string; name: string; schemaModule: string; schema: string }> = [];
  for (const [stem, name, type] of CONFIG_TYPES) {
    const s = modules[stem][name];
    const init = sources[stem]?.inits.get(name);
    const docNode = init && findDeclaration(init.source, name);
    const doc = (docNode && docOf(docNode, init.source)) ?? `/** ${type}. */`;
    const docs = init ? fieldDocsOf(init.init, init.source) : new Map();
    if (name === "McpServerConfigSchema") out.blocks.push(`${doc}\nexport type ${type} = StdioServerConfig | HttpServerConfig;`);
    else out.blocks.push(declare(printer, type, doc, s, docs));
    inferred.push({ file: out.path, name: type, schemaModule: `config/${stem}.ts`, schema: name });
  }
  return { text: render(out), inferred };
}

function findDeclaration(source: ts.SourceFile, name: string): ts.Node | undefined {
  for (const st of source.statements)
    if (ts.isVariableStatement(st) && st.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === name))
      return st;
  return undefined;
}

// ── The equality tests ──

/** A test file: each declared type equals, both ways, the valibot-inferred type of its schema. */
function equalityTest(
  path: string,
  inferred: Array<{ file: string; name: string; schemaModule: string; schema: string }>,
  wire: boolean,
): string {
  const byModule = (key: "file" | "schemaModule") => new Set(inferred.map((i) => i[key]));
  const imports = [
    'import type * as v from "valibot";',
    ...[...byModule("schemaModule")].map((mod) => `import type * as ${alias(mod, "schema")} from "${relativeImport(path, mod)}";`),
    ...[...byModule("file")].map((mod) => `import type * as ${alias(mod)} from "${relativeImport(path, mod)}";`),
  ];
  if (wire) {
    imports.push(
      `import type { notifications_2025_11_25, requests_2025_11_25 } from "${relativeImport(path, "wire/schemas/methods-2025-11-25.ts")}";`,
    );
    imports.push(`import type * as methods from "${relativeImport(path, "wire/types/methods-2025-11-25.generated.ts")}";`);
  }
  const lines = inferred.map(
    (i) => `  ${i.name}: Same<${alias(i.file)}.${i.name}, v.InferOutput<typeof ${alias(i.schemaModule, "schema")}.${i.schema}>>;`,
  );
  const methodLines = wire
    ? [
        "",
        "/** The method maps: each request's params and result, each notification's params, as the table infers them. */",
        "type Requests = typeof requests_2025_11_25;",
        "type Notifications = typeof notifications_2025_11_25;",
        "type MethodChecks = {",
        '  requestParams: { [M in keyof Requests]: Same<methods.RequestParamsOf<M>, v.InferOutput<Requests[M]["params"]>> };',
        '  results: { [M in keyof Requests]: Same<methods.ResultOf<M>, v.InferOutput<Requests[M]["result"]>> };',
        '  notificationParams: { [M in keyof Notifications]: Same<methods.NotificationParamsOf<M>, v.InferOutput<Notifications[M]["params"]>> };',
        "  methods: Same<methods.RequestMethod, keyof Requests> & Same<methods.NotificationMethod, keyof Notifications>;",
        "};",
        "const methodChecks = {} as MethodChecks;",
        "export const methodsSame: Record<string, true> = { ...methodChecks.requestParams, ...methodChecks.results, ...methodChecks.notificationParams };",
      ]
    : [];
  return `/**
 * Each declared type of \`${path.replace(/\/[^/]+$/, "")}\` equals, both ways, the type valibot infers from its schema:
 * \`bun run typecheck\` fails on any difference (a field added to a schema and not to the declared type, an
 * optional field made required, a union arm missing). No run-time test here: \`scripts/declared-types.test.ts\`
 * checks the committed files are what \`scripts/declared-types.ts\` prints. ${GENERATED}
 */
${imports.join("\n")}

/** Identical after flattening intersections: true when A and B are the same type, else a type error below. */
type Flat<T> = T extends (...args: never[]) => unknown ? T : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;
type Equal<A, B> = (<T>() => T extends Flat<A> ? 1 : 2) extends (<T>() => T extends Flat<B> ? 1 : 2) ? true : false;
type Same<A, B> = Equal<A, B> extends true ? true : { declared: A; inferred: B };

type Checks = {
${lines.join("\n")}
};
/** Every entry must be \`true\`: a \`{ declared, inferred }\` pair names a type that differs from its schema. */
export const same: { [K in keyof Checks]: true } = {} as Checks;
${methodLines.join("\n")}
`;
}

function alias(file: string, kind = "declared"): string {
  return `${kind}_${basename(file, ".ts").replace(/[^A-Za-z0-9]/g, "_")}`;
}

if (import.meta.main) {
  for (const [file, text] of await declaredTypesFiles()) writeFileSync(join(SDK, file), text);
  console.log("wrote the declared types; run `bun run format`");
}
