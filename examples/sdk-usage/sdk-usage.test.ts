/** The SDK works in Node 20 (ESM bundles in dist/) and in Bun (TypeScript sources). */
import { beforeAll, expect, test } from "bun:test";
import { resolve } from "node:path";

const root = resolve(import.meta.dir, "../..");
const cli = resolve(root, "packages/cli/src/main.ts");

beforeAll(async () => {
  const build = Bun.spawn([process.execPath, resolve(root, "scripts/build-packages.ts"), "--js-only"], { stdout: "pipe", stderr: "pipe" });
  const [code, err] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`build-packages failed: ${err}`);
}, 120_000);

test("createAgent runs a tool-using agent under Node", async () => {
  const node = Bun.which("node");
  if (!node) throw new Error("node is not on PATH: this test needs Node.js (the README's prerequisite)");
  const proc = Bun.spawn([node, resolve(import.meta.dir, "node-agent.mjs"), process.execPath, cli, "__demo-server"], {
    cwd: import.meta.dir,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(err).toBe("");
  expect(code).toBe(0);
  const result = JSON.parse(out);
  expect(result).toMatchObject({ text: "Node saw: shipped", turns: 2 });
  expect(result.node).toMatch(/^\d+\./);
});

test("the same from Bun, over the anthropic dialect", async () => {
  const proc = Bun.spawn([process.execPath, resolve(import.meta.dir, "bun-agent.ts")], {
    cwd: import.meta.dir,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(0);
  expect(out).toContain("10 GBP is 11.7 EUR");
  expect(err).toContain("tool demo/convert_currency took");
});

test("a run watched as a stream of events", async () => {
  const proc = Bun.spawn([process.execPath, resolve(import.meta.dir, "stream-agent.ts")], {
    cwd: import.meta.dir,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(0);
  expect(out).toBe("10 GBP is 11.7 EUR\n");
  expect(err).toContain('→ demo/convert_currency {"amount":10,"from":"GBP","to":"EUR"}');
  expect(err).toMatch(/← demo\/convert_currency ok in \d+ms: /);
  expect(err).toContain("ok · 2 turns");
});

test("a typed tool defined in code, over the Responses dialect: invalid arguments are an error the model reads", async () => {
  const proc = Bun.spawn([process.execPath, resolve(import.meta.dir, "typed-tool.ts")], {
    cwd: import.meta.dir,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(0);
  expect(out).toBe("21°C is 70°F\n");
  expect(err).toContain("tool convert_temperature: error\ntool convert_temperature: ok");
});
