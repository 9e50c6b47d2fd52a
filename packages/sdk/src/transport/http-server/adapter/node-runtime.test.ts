/**
 * The server case suite against the SDK under Node itself: `__fixtures__/node-serve.ts` is bundled for Node the
 * way `scripts/build-packages.ts` bundles the SDK, run by `node` (so the Node adapter, node:https client
 * certificates and standard streams are what serve), and driven from here over loopback.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CaseOptions, CaseServer } from "../__fixtures__/case-server.ts";
import { runServerCases } from "../__fixtures__/server.case.ts";

const NODE = Bun.which("node");
const FIXTURES = join(import.meta.dir, "..", "__fixtures__");
let dir = "";
let script = "";

/** Start the bundled server under Node; close() ends its stdin and waits for it to exit (killed if it does not). */
async function startUnderNode(options: CaseOptions): Promise<CaseServer> {
  const proc = Bun.spawn([NODE!, script, JSON.stringify(options)], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const close = async () => {
    try {
      proc.stdin.end();
    } catch {}
    const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
    await proc.exited;
    clearTimeout(timer);
  };
  const reader = proc.stdout.getReader();
  let line = "";
  while (!line.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) {
      await close();
      throw new Error(`the Node server did not start: ${await new Response(proc.stderr).text()}`);
    }
    line += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const started = JSON.parse(line) as { url: string; runtime: string };
  if (started.runtime !== "node") {
    await close();
    throw new Error(`expected the server to run under node, it ran under ${started.runtime}`);
  }
  return { url: new URL(started.url), close };
}

describe.skipIf(!NODE)("under Node", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentd-http-node-"));
    const built = await Bun.build({ entrypoints: [join(FIXTURES, "node-serve.ts")], outdir: dir, target: "node", format: "esm" });
    if (!built.success) throw new AggregateError(built.logs, "bundling the Node fixture failed");
    script = built.outputs[0]!.path;
  }, 60_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("the bundled server runs under node and reports it", async () => {
    const s = await startUnderNode({});
    try {
      expect(s.url.protocol).toBe("http:");
    } finally {
      await s.close();
    }
  });

  runServerCases("the server under Node 20", startUnderNode);
});
