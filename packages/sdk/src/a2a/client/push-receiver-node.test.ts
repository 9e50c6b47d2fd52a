/** The A2A client's push receiver under Node itself (it listens with the runtime's HTTP adapter, node:http there). */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const NODE = Bun.which("node");
let dir = "";

describe.skipIf(!NODE)("the push receiver under Node", () => {
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("it listens on loopback, refuses a wrong token and queues a good event", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentd-push-node-"));
    const built = await Bun.build({
      entrypoints: [join(import.meta.dir, "__fixtures__", "node-push-receiver.ts")],
      outdir: dir,
      target: "node",
      format: "esm",
    });
    if (!built.success) throw new AggregateError(built.logs, "bundling the Node fixture failed");
    const proc = Bun.spawn([NODE!, built.outputs[0]!.path], { stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]).finally(
      () => clearTimeout(timer),
    );
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      runtime: "node",
      loopback: "127.0.0.1",
      wrong: 401,
      right: 200,
      got: { statusUpdate: { taskId: "t-1", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } } },
    });
  }, 60_000);
});
