/**
 * Every place that compiles the agentd binary uses the same flags (compile-flags.ts), so the start-up
 * benchmark measures what the npm packages, `bun run build:binary`, the image and the binary's tests run.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMPILE_FLAGS } from "./compile-flags.ts";

const ROOT = join(import.meta.dir, "..", "..", "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The TypeScript files that run `bun build --compile` for the agentd binary. */
const BUILDERS = [
  "scripts/build-cli.ts",
  "scripts/image-rootfs.test.ts",
  "bench/startup/startup-bench.ts",
  "bench/growth/growth-bench.ts",
  "e2e/binary.e2e.test.ts",
  "e2e/binary-channels.e2e.test.ts",
  "e2e/console-binary.e2e.test.ts",
  "e2e/late-reader.e2e.test.ts",
  "e2e/subagent-binary.e2e.test.ts",
];

test("the TypeScript builders use COMPILE_FLAGS and spell no flags of their own", () => {
  for (const path of BUILDERS) {
    const source = read(path);
    const uses = source.split("\n").some((line) => !line.startsWith("import ") && line.includes("COMPILE_FLAGS"));
    expect({ path, uses }).toEqual({ path, uses: true });
    expect({ path, literal: /"--(bytecode|splitting|format=esm|compile-jit-policy=\d+)",/.test(source) }).toEqual({ path, literal: false });
  }
});

test("the shell builders (build:binary, the container image) name the same flags", () => {
  const line = `build ${COMPILE_FLAGS.join(" ")} packages/cli/src/main.ts`;
  const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;
  expect(scripts["build:binary"]).toContain(line);
  expect(read("scripts/build-image.sh")).toContain(line);
});

test("the binary splits its lazily loaded code into chunks and starts with a reluctant JIT", () => {
  expect(COMPILE_FLAGS).toContain("--splitting");
  expect(COMPILE_FLAGS).toContain("--bytecode");
  expect(COMPILE_FLAGS.some((f) => /^--compile-jit-policy=\d+$/.test(f))).toBe(true);
});

test("the binary reads no bunfig.toml or .env of the directory it runs in", () => {
  expect(COMPILE_FLAGS).toContain("--no-compile-autoload-bunfig");
  expect(COMPILE_FLAGS).toContain("--no-compile-autoload-dotenv");
});
