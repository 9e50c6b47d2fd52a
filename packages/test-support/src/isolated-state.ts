/**
 * Preloaded by `bun test` (bunfig.toml): the suite's state directory. agentd keeps local state — saved
 * conversations, waiting runs, approval questions, OAuth tokens — under `$XDG_STATE_HOME/agentd`, else
 * `~/.local/state/agentd`; a test that does not name a directory of its own must not write into the
 * developer's home. Every test, and every process a test starts with `process.env` (or passes
 * `XDG_STATE_HOME` on, as the spawning fixtures do), gets one fresh directory for the run, removed at exit.
 * `bun test` reads the bunfig.toml of the folder it runs in, so each package with tests preloads this file
 * in its own bunfig.toml too (isolated-state.test.ts runs a probe from each).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "agentd-test-state-"));
process.env.XDG_STATE_HOME = dir;
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
