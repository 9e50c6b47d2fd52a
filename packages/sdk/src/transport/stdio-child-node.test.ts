/**
 * The stdio client transport under Node itself (the packages' Node build spawns with `node:child_process`):
 * a fixture is bundled for Node the way `scripts/build-packages.ts` bundles the SDK, and run by `node`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const NODE = Bun.which("node");
const FIXTURES = join(import.meta.dir, "__fixtures__");
const TEST_TIMEOUT = 60_000;
let dir = "";
let script = "";

describe.skipIf(!NODE)("StdioChildTransport under Node", () => {
  // Inside the describe: skipped with it when there is no Node.
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentd-stdio-node-"));
    const built = await Bun.build({ entrypoints: [join(FIXTURES, "node-run.ts")], outdir: dir, target: "node", format: "esm" });
    if (!built.success) throw new AggregateError(built.logs, "bundling the Node fixture failed");
    script = built.outputs[0]!.path;
  }, TEST_TIMEOUT);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test(
    "node:child_process is the spawn API; messages, process groups, closing a tree, exits and spawn errors all hold",
    async () => {
      const proc = Bun.spawn([NODE!, script, process.execPath, join(FIXTURES, "child-modes.ts")], { stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      expect(err).toBe("");
      expect(code).toBe(0);
      expect(JSON.parse(out)).toEqual({
        runtime: "node",
        defaultSpawnApi: "node",
        message: { jsonrpc: "2.0", method: "env", params: { configured: "yes", leaked: null, hasPath: true } },
        ownGroup: true,
        closedExit: { code: 0, signal: null },
        serverInWrapperGroup: true,
        wrapperExit: { code: null, signal: "SIGTERM" },
        serverGone: true,
        lastMessages: [{ jsonrpc: "2.0", method: "hello", params: {} }],
        exitErrors: ["MCP server 'quitter' exited with code 3"],
        closeReason: "MCP server 'quitter' exited with code 3; nothing on stderr",
        notFound: "could not start MCP server 'ghost': command 'agentd-no-such-command-xyz' not found",
      });
    },
    TEST_TIMEOUT,
  );
});
