/**
 * The platforms the CLI binary is published for: each becomes the package `@agentd/cli-<name>` whose
 * `os`/`cpu` match Node's `process.platform`/`process.arch` (what npm and bun filter optional dependencies
 * by), compiled with `bun build --compile --target=bun-<bunTarget>`. The launcher (packages/cli/bin/agentd.js)
 * derives the same name from the running platform, with `windows` for `win32`.
 */

/** One published platform. */
export interface CliTarget {
  name: string;
  os: "linux" | "darwin" | "win32";
  cpu: "x64" | "arm64";
  bunTarget: string;
  exe: string;
}

/** Every platform Bun cross-compiles to from here (all five verified). */
export const CLI_TARGETS: CliTarget[] = [
  { name: "linux-x64", os: "linux", cpu: "x64", bunTarget: "linux-x64", exe: "agentd" },
  { name: "linux-arm64", os: "linux", cpu: "arm64", bunTarget: "linux-arm64", exe: "agentd" },
  { name: "darwin-x64", os: "darwin", cpu: "x64", bunTarget: "darwin-x64", exe: "agentd" },
  { name: "darwin-arm64", os: "darwin", cpu: "arm64", bunTarget: "darwin-arm64", exe: "agentd" },
  { name: "windows-x64", os: "win32", cpu: "x64", bunTarget: "windows-x64", exe: "agentd.exe" },
];

/** The target of the machine running the build. */
export function hostTarget(): CliTarget {
  const t = CLI_TARGETS.find((c) => c.os === process.platform && c.cpu === process.arch);
  if (!t) throw new Error(`no CLI target for ${process.platform}-${process.arch} (known: ${CLI_TARGETS.map((c) => c.name).join(", ")})`);
  return t;
}
