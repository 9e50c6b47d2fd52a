/**
 * What importing `@agentd/sdk` costs a consumer's type checker: a fresh project outside the repository
 * (in the system's temp folder) whose node_modules links the built packages, a strict NodeNext tsconfig with
 * `skipLibCheck: false` (every published `.d.ts` is checked, as a project that does not skip them would),
 * and one file that imports the entry points an application uses. Prints tsc's `--extendedDiagnostics`
 * figures that matter (check time, types, instantiations, total) as one JSON line, with the check time of the
 * same project over a file that imports nothing (`baselineCheckSeconds`: the consumer's own `lib`, lib.dom
 * mostly) and the difference (`packagesCheckSeconds`: what importing the packages costs).
 *
 * Usage: bun bench/types/type-check.ts [--build]   (--build first runs scripts/build-packages.ts sdk adapters testkit)
 *   TYPES_TRACE_DIR=dir   also write tsc's --generateTrace there (which files the time goes to)
 */
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const PACKAGES = ["sdk", "adapters", "testkit"];

if (process.argv.includes("--build")) {
  const b = Bun.spawnSync([process.execPath, join(ROOT, "scripts", "build-packages.ts"), ...PACKAGES], {
    stdout: "inherit",
    stderr: "inherit",
  });
  if (b.exitCode !== 0) process.exit(1);
}

/** The consumer: the calls an application makes, so every entry's declarations are read and used. */
const CONSUMER = `import { createAgent, createAgentFromConfig, parseConfig, tool, type AgentdConfig } from "@agentd/sdk";
import { McpClient } from "@agentd/sdk/mcp";
import { createModel } from "@agentd/adapters";
import { startFakeGateway } from "@agentd/testkit";

const config: AgentdConfig = parseConfig({ model: { dialect: "openai", name: "m" } });
const gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "hi" }] });
const model = createModel({ dialect: "openai", baseURL: gateway.url, model: "m", apiKey: "k" });
const echo = tool({ name: "echo", description: "Echo", parameters: { "~standard": { version: 1, vendor: "x", validate: (v: unknown) => ({ value: v as { text: string } }), types: { input: { text: "" }, output: { text: "" } } } }, jsonSchema: { type: "object" }, execute: (input) => input.text });
const agent = createAgent({ model, tools: [echo] });
const fromConfig = await createAgentFromConfig(config, { model });
export const used = [agent, fromConfig, McpClient, config.model?.name];
await gateway.close();
`;

const work = mkdtempSync(join(tmpdir(), "agentd-types-"));
try {
  mkdirSync(join(work, "node_modules", "@agentd"), { recursive: true });
  for (const p of PACKAGES) symlinkSync(join(ROOT, "packages", p), join(work, "node_modules", "@agentd", p), "dir");
  writeFileSync(join(work, "package.json"), JSON.stringify({ name: "types-consumer", private: true, type: "module" }));
  writeFileSync(
    join(work, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        lib: ["ESNext", "DOM"],
        types: [],
      },
      files: ["consumer.ts"],
    }),
  );
  writeFileSync(join(work, "consumer.ts"), CONSUMER);
  // The same project with a file that imports nothing: what the consumer's own `lib` (lib.dom, lib.es*) costs
  // whatever it imports. The difference is what importing the packages costs.
  writeFileSync(join(work, "empty.ts"), "export {};\n");
  writeFileSync(join(work, "tsconfig.empty.json"), JSON.stringify({ extends: "./tsconfig.json", files: ["empty.ts"] }));
  const node = Bun.which("node") ?? process.execPath;
  const run = (project: string, trace: string[] = []) => {
    const r = Bun.spawnSync([node, TSC, "-p", project, "--extendedDiagnostics", ...trace], { cwd: work, stdout: "pipe", stderr: "pipe" });
    return r.stdout.toString() + r.stderr.toString();
  };
  const figure = (out: string, name: string) => Number(out.match(new RegExp(`^${name}:\\s+([\\d.]+)`, "m"))?.[1]);
  const baseline = run("tsconfig.empty.json");
  const out = run("tsconfig.json", process.env.TYPES_TRACE_DIR ? ["--generateTrace", process.env.TYPES_TRACE_DIR] : []);
  const errors = out.split("\n").filter((l) => / error TS\d+/.test(l));
  const checkSeconds = figure(out, "Check time");
  const baselineCheckSeconds = figure(baseline, "Check time");
  console.log(
    JSON.stringify({
      checkSeconds,
      totalSeconds: figure(out, "Total time"),
      baselineCheckSeconds,
      packagesCheckSeconds: Number((checkSeconds - baselineCheckSeconds).toFixed(2)),
      types: figure(out, "Types"),
      instantiations: figure(out, "Instantiations"),
      files: figure(out, "Files"),
      errors: errors.length,
    }),
  );
  if (errors.length > 0) console.error(errors.slice(0, 20).join("\n"));
} finally {
  rmSync(work, { recursive: true, force: true });
}
