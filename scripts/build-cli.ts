/**
 * Assemble the publishable `@agentd/cli` into `build/npm/` (generated, never committed):
 * - `build/npm/cli-<target>/`: one package per platform holding the compiled binary (`bin/agentd`, or
 *   `bin/agentd.exe`), limited to that platform by `os`/`cpu`, so a package manager installs only the one
 *   that fits;
 * - `build/npm/cli/`: the launcher package: `bin/agentd.js` (runs under Node, finds the binary) and every
 *   platform package as an optional dependency at the same version.
 * packages/cli/package.json stays the workspace's manifest (private, sources, dev dependencies); the
 * launcher's manifest is derived from it here. Publish the folders with `npm publish build/npm/<dir>` (no
 * workspace dependencies left in them, so npm and bun both pack them as they are).
 *
 * Usage: bun scripts/build-cli.ts [--targets=linux-x64,darwin-arm64,…|all] [--out=DIR]
 *   --targets   the platforms to compile for (default: this machine's); the launcher lists them all
 *   --out       where to write the package folders (default: build/npm)
 */
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { readManifest } from "./packaging/manifest.ts";
import { CLI_TARGETS, hostTarget, type CliTarget } from "./packaging/cli-targets.ts";
import { COMPILE_FLAGS } from "../packages/cli/src/compile-flags.ts";

const root = resolve(import.meta.dir, "..");
const cliDir = join(root, "packages", "cli");
const outArg = process.argv.find((a) => a.startsWith("--out="))?.slice("--out=".length);
const out = outArg ? resolve(outArg) : join(root, "build", "npm");
const cli = readManifest(cliDir);
const common = { version: cli.version, license: cli.license, repository: cli.repository, homepage: cli.homepage, bugs: cli.bugs };

function parseTargets(argv: string[]): CliTarget[] {
  const arg = argv.find((a) => a.startsWith("--targets="))?.slice("--targets=".length);
  if (!arg) return [hostTarget()];
  if (arg === "all") return CLI_TARGETS;
  return arg.split(",").map((name) => {
    const t = CLI_TARGETS.find((c) => c.name === name);
    if (!t) throw new Error(`unknown target "${name}" (one of: ${CLI_TARGETS.map((c) => c.name).join(", ")}, all)`);
    return t;
  });
}

/** Compile the CLI for one platform into its package folder. */
async function buildPlatform(t: CliTarget): Promise<void> {
  const dir = join(out, `cli-${t.name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "bin"), { recursive: true });
  const outfile = join(dir, "bin", t.exe);
  // Bun fetches the runtime of a foreign target from the npm registry (`@oven/bun-<os>-<arch>`) once.
  const args = ["build", ...COMPILE_FLAGS, `--target=bun-${t.bunTarget}`, join(cliDir, "src", "main.ts"), "--outfile", outfile];
  const proc = Bun.spawn([process.execPath, ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [code, , err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`compiling for ${t.name} failed:\n${err}`);
  chmodSync(outfile, 0o755);
  const manifest = {
    name: `@agentd/cli-${t.name}`,
    ...common,
    description: `The agentd binary for ${t.name} (installed by @agentd/cli)`,
    os: [t.os],
    cpu: [t.cpu],
    files: ["bin", "README.md", "LICENSE"],
    // Yarn PnP and friends must leave an executable on disk.
    preferUnplugged: true,
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(join(cliDir, "LICENSE"), join(dir, "LICENSE"));
  writeFileSync(
    join(dir, "README.md"),
    `# @agentd/cli-${t.name}\n\nThe compiled \`agentd\` binary for ${t.name}. Install [\`@agentd/cli\`](https://www.npmjs.com/package/@agentd/cli) instead: it depends on this package for this platform only.\n`,
  );
  console.error(`built ${dir}`);
}

/** The launcher package: the Node-runnable bin, README, and every platform as an optional dependency. */
function buildLauncher(): void {
  const dir = join(out, "cli");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(join(cliDir, "bin", "agentd.js"), join(dir, "bin", "agentd.js"));
  chmodSync(join(dir, "bin", "agentd.js"), 0o755);
  copyFileSync(join(cliDir, "README.md"), join(dir, "README.md"));
  copyFileSync(join(cliDir, "LICENSE"), join(dir, "LICENSE"));
  // The JSON Schema of agentd.json, which `agentd init` names in `$schema` (scripts/config-schema.ts).
  mkdirSync(join(dir, "schema"));
  for (const f of readdirSync(join(cliDir, "schema"))) copyFileSync(join(cliDir, "schema", f), join(dir, "schema", f));
  const manifest = {
    name: cli.name,
    ...common,
    description: cli.description,
    type: "module",
    engines: { node: ">=20" },
    bin: cli.bin,
    files: ["bin", "schema", "README.md", "LICENSE"],
    optionalDependencies: Object.fromEntries(CLI_TARGETS.map((t) => [`@agentd/cli-${t.name}`, cli.version])),
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  console.error(`built ${dir}`);
}

try {
  const targets = parseTargets(process.argv.slice(2));
  buildLauncher();
  for (const t of targets) await buildPlatform(t);
} catch (e) {
  console.error(`build-cli: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
