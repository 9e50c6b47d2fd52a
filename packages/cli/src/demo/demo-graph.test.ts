/**
 * What `agentd demo` loads at start, as the binary is built (`bun build --splitting`): the chunks main.ts,
 * the prelaunch, the CLI and the demo command import statically. The subagent child's entry stays in a chunk
 * of its own (a dynamic import of a whole SDK entry would keep every export in a chunk the demo loads), and so
 * do the fake gateway's dialects other than the scripted demo's openai one, and the config file loader (JSONC,
 * dotenv, other tools' formats): the demo validates a configuration it built and never reads a file; the
 * configuration's schema is built on the first validation, which the scripted demo never makes.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../../../..");
const out = mkdtempSync(join(tmpdir(), "agentd-demo-graph-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

interface Meta {
  outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string }[]; inputs: Record<string, unknown> }>;
}

/** The source modules in the chunks the demo loads before it runs. */
async function demoStartModules(): Promise<Set<string>> {
  const metafile = join(out, "meta.json");
  const build = Bun.spawn(
    [
      process.execPath,
      "build",
      "--splitting",
      "--format=esm",
      "--target=bun",
      `--metafile=${metafile}`,
      "packages/cli/src/main.ts",
      "--outdir",
      join(out, "js"),
    ],
    { cwd: ROOT, stdout: "ignore", stderr: "pipe" },
  );
  const [code, err] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`bun build failed: ${err}`);
  const { outputs } = JSON.parse(readFileSync(metafile, "utf8")) as Meta;
  const key = (path: string) => `./${path.replace(/^\.\//, "")}`;
  const roots = ["main.ts", "cli.ts", "commands/demo.ts", "demo/prelaunch-server.ts"].map((f) => `packages/cli/src/${f}`);
  const todo = Object.keys(outputs).filter((k) => roots.some((r) => outputs[k]?.entryPoint === r));
  expect(todo).toHaveLength(roots.length);
  const seen = new Set<string>();
  const modules = new Set<string>();
  for (let chunk = todo.pop(); chunk !== undefined; chunk = todo.pop()) {
    if (seen.has(chunk)) continue;
    seen.add(chunk);
    const o = outputs[chunk];
    if (!o) continue;
    for (const m of Object.keys(o.inputs)) modules.add(m);
    for (const i of o.imports) if (i.kind === "import-statement") todo.push(key(i.path));
  }
  return modules;
}

let started: Promise<Set<string>> | undefined;
/** One build for every test here. */
const startModules = async () => [...(await (started ??= demoStartModules()))];

test("agentd demo does not load the subagent child's modules at start", async () => {
  const modules = await startModules();
  expect(modules.some((m) => m.endsWith("cli/src/commands/demo.ts"))).toBe(true);
  expect(modules.filter((m) => /agent\/subagent-child\.ts$|supervisor\/child-endpoint\.ts$/.test(m))).toEqual([]);
}, 60_000);

test("agentd demo loads only its fake gateway's openai dialect at start", async () => {
  const modules = await startModules();
  expect(modules.some((m) => m.endsWith("testkit/src/gateway/openai-dialect.ts"))).toBe(true);
  expect(modules.filter((m) => /testkit\/src\/gateway\/(anthropic|gemini|responses)-/.test(m))).toEqual([]);
}, 60_000);

test("agentd demo does not load the config file loader at start (it validates an object it built)", async () => {
  const modules = await startModules();
  expect(modules.some((m) => m.endsWith("sdk/src/config/parse-config.ts"))).toBe(true);
  expect(modules.filter((m) => /config\/load\.ts$|config\/foreign|\/jsonc-parser\/|\/dotenv\//.test(m))).toEqual([]);
}, 60_000);

test("agentd demo does not load the configuration's schema at start (built on the first validation)", async () => {
  const modules = await startModules();
  expect(modules.filter((m) => /sdk\/src\/config\/([a-z-]+-)?schema\.ts$|sdk\/src\/config\/key-hint\.ts$/.test(m))).toEqual([]);
}, 60_000);
