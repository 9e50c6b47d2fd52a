/**
 * `bun run test:fast`: the unit and in-process tests only — the loop to run while working (under two minutes
 * on two cores). What it leaves out is named here, by rule and by file: system tests that start agentd or
 * other programs as processes (the top-level `e2e/` folder, and any `*.e2e.test.ts`), proofs against peers
 * (`*.proof.test.ts`), benchmarks, manifests, examples and scripts, and the slowest in-process files. The full
 * suite (`npm test`, what CI runs) keeps every one of them.
 */
import { Glob } from "bun";
import { existsSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");

/** Left out by their kind. */
export const LEFT_OUT_BY_RULE: readonly RegExp[] = [/\.e2e\.test\.ts$/, /\.proof\.test\.ts$/, /^(bench|deploy|e2e|examples|scripts)\//];

/** Left out by name: in-process, but each takes seconds (real timers, child processes, many sessions). */
export const SLOW_FILES: readonly string[] = [
  "packages/sdk/src/public-surface.test.ts",
  "packages/sdk/src/store/store-faults.test.ts",
  "packages/sdk/src/mcp/client/conformance-auth.test.ts",
  "packages/sdk/src/mcp/client/conformance-client.test.ts",
  "packages/sdk/src/serve/serve-memory.test.ts",
  "packages/sdk/src/transport/http-server/sse-resume.test.ts",
  "packages/sdk/src/transport/http-server/idle-memory.test.ts",
  "packages/sdk/src/transport/stdio-child.test.ts",
  "packages/sdk/src/transport/stdio-backpressure.test.ts",
  "packages/sdk/src/transport/_death-watch.test.ts",
  "packages/sdk/src/transport/http-client/request-cancel.test.ts",
  "packages/sdk/src/transport/http-client/empty-streams.test.ts",
  "packages/sdk/src/transport/http-client/server-everything.test.ts",
  "packages/sdk/src/supervisor/supervisor.test.ts",
  "packages/sdk/src/a2a/server/a2a-elicitation.test.ts",
  "packages/sdk/src/a2a/client/tool-set.test.ts",
  "packages/sdk/src/store/run-claims.test.ts",
  "packages/cli/src/init.test.ts",
  "packages/testkit/src/mcp/fake-server-command.test.ts",
];

/** The test files `test:fast` runs, sorted. */
export function fastTestFiles(root = ROOT): string[] {
  const all = [...new Glob("{packages,e2e,examples,bench,scripts,deploy}/**/*.test.ts").scanSync(root)].filter(
    (f) => !f.includes("node_modules"),
  );
  return all.filter((f) => !LEFT_OUT_BY_RULE.some((r) => r.test(f)) && !SLOW_FILES.includes(f)).sort();
}

if (import.meta.main) {
  const missing = SLOW_FILES.filter((f) => !existsSync(join(ROOT, f)));
  if (missing.length) {
    console.error(`test:fast: SLOW_FILES names files that do not exist: ${missing.join(", ")}`);
    process.exit(2);
  }
  const files = fastTestFiles().map((f) => `./${f}`);
  const proc = Bun.spawn(["bash", join(ROOT, "scripts/test.sh"), ...files], { cwd: ROOT, stdio: ["inherit", "inherit", "inherit"] });
  process.exitCode = await proc.exited;
}
