/**
 * Runs that wait durably, across processes: the SDK's `run → waiting → resume` with the run started by one
 * process and resumed by another on the same state directory (`XDG_STATE_HOME`), against the fake gateway
 * over loopback HTTP and the testkit's fake MCP server over stdio (its record file, shared by the processes'
 * servers, is the server's own account of what reached it). The approved call is made exactly once with the
 * saved arguments, the denied one never reaches the server, and a second resume is refused.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand, type RecordedRequest } from "@agentd/testkit";

const CHILD = join(import.meta.dir, "__fixtures__", "waiting-run-child.ts");

let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
let state: string | undefined;
afterEach(async () => {
  await gateway?.close();
  fake?.dispose();
  if (state) rmSync(state, { recursive: true, force: true });
  gateway = fake = state = undefined;
});

const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;

/** One process of the run, to its exit: its printed result and exit code. */
async function child(args: string[]): Promise<{ code: number; out: Record<string, unknown>; stderr: string }> {
  const proc = Bun.spawn([process.execPath, CHILD, ...args], {
    env: { ...process.env, GATEWAY_URL: gateway!.url, SERVER_CONFIG: JSON.stringify(fake!.config), XDG_STATE_HOME: state! },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return { code, out: line ? (JSON.parse(line) as Record<string, unknown>) : {}, stderr };
}

const serverCalls = () =>
  (fake?.recordedRequests() ?? [])
    .filter((r) => r.method === "tools/call")
    .map((r) => `${(r.params as { name: string }).name} ${JSON.stringify((r.params as { arguments?: unknown }).arguments)}`);

describe("run → waiting → resume across two processes", () => {
  test("approved once with the saved arguments, denied never made, the run finishes; a second resume is refused", async () => {
    state = mkdtempSync(join(tmpdir(), "agentd-waiting-state-"));
    fake = fakeServerCommand({ tools: [{ name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } }] });
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) => ({
          toolCalls: [
            { name: tool(req, "delete_file"), arguments: { path: "/srv/old" } },
            { name: tool(req, "delete_file"), arguments: { path: "/etc" } },
          ],
        }),
        (req) => ({ text: `finished after: ${req.lastToolResult}` }),
      ],
    });
    const first = await child(["run", "run-durable-1"]);
    expect(first.code).toBe(0);
    expect(first.out).toMatchObject({ status: "waiting", stopReason: "waiting", runId: "run-durable-1" });
    const pending = first.out.pending as Array<{ id: string; digest: string; arguments: { path: string } }>;
    expect(pending.map((p) => p.arguments.path)).toEqual(["/srv/old", "/etc"]);
    // Nothing reached the server while the run waits; the first process has exited.
    expect(serverCalls()).toEqual([]);
    expect(gateway.requests).toHaveLength(1);

    const decisions = {
      [pending[0]!.id]: { decision: "approve", by: "ops", digest: pending[0]!.digest },
      [pending[1]!.id]: { decision: "deny", by: "ops", reason: "never /etc" },
    };
    const second = await child(["resume", "run-durable-1", JSON.stringify(decisions)]);
    expect(second.code).toBe(0);
    expect(second.out).toMatchObject({ status: "finished", stopReason: "final", runId: "run-durable-1", turns: 2, toolCalls: 2 });
    expect(serverCalls()).toEqual(['delete_file {"path":"/srv/old"}']);
    expect(gateway.requests).toHaveLength(2);
    // The model read both results: the approved call's and the denial with its reason.
    const body = gateway.requests[1]!.bodyText;
    expect(body).toContain("deleted /srv/old");
    expect(body).toContain("never /etc");

    const third = await child(["resume", "run-durable-1", JSON.stringify(decisions)]);
    expect(third.code).toBe(2);
    expect(third.out).toMatchObject({ error: "E_USAGE" });
    expect(String(third.out.message)).toContain("already resumed");
    expect(serverCalls()).toEqual(['delete_file {"path":"/srv/old"}']);
  }, 90_000);
});
