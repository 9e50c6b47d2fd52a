/**
 * How the agentd binary is compiled, in one place: the npm packages (scripts/build-cli.ts), `bun run
 * build:binary`, the container image, the binary's end-to-end tests and the start-up benchmark all build
 * with these flags, so the benchmark's figure is what users run (compile-flags.test.ts holds every builder
 * to them).
 *
 * - `--bytecode --format=esm`: the code is precompiled to bytecode; nothing is parsed at start.
 * - `--splitting`: each `import()` is its own chunk, loaded only when reached — a command loads its own
 *   module graph, not the whole CLI's, and a `__demo-server` copy of the binary only the MCP server's.
 * - `--compile-jit-policy`: start-up code runs once, so the JIT compiling it rarely pays back; the binary
 *   starts with JavaScriptCore's tier-up thresholds scaled up, and main.ts sets the normal policy back once
 *   the process has lived a second (a server, a watch, a long run).
 * - `--no-compile-autoload-bunfig --no-compile-autoload-dotenv`: a compiled Bun program reads `bunfig.toml`
 *   and `.env` from the working directory by default, so running agentd inside a cloned repository would run
 *   that repository's `preload` scripts and take its `.env` into agentd's environment (and into `${VAR}`
 *   expansion). agentd's configuration comes from its own files and the real environment only.
 */

/** JavaScriptCore's tier-up thresholds are this many times higher for the binary's first second. */
export const START_JIT_POLICY = 16;

/** The flags after `bun build` (the entry and `--outfile` follow; `--target` too when cross-compiling). */
export const COMPILE_FLAGS: readonly string[] = [
  "--compile",
  "--bytecode",
  "--splitting",
  "--format=esm",
  `--compile-jit-policy=${START_JIT_POLICY}`,
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-dotenv",
];
