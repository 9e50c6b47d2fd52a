/**
 * A triggered run of `agentd serve` that stops to wait for a decision is recorded as waiting — in the run
 * history (`agent://runs/{runId}`, the listing the console reads) with its pending question, in
 * `agent://status` and in `agentd status` — until the operator decides; resumed, the same record ends
 * `succeeded` with the answer. Real processes: `agentd serve --http` with an operator token, a trigger that
 * runs once (an interval with `maxRuns: 1`), the fake gateway's model calling `fs/delete_file` of the
 * testkit's fake MCP server, a rule asking for it.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeServerCommand, startFakeGateway, type RecordedRequest } from "@agentd/testkit";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";
import { startServe } from "./__fixtures__/serve/serve-process.ts";
import { serveParts } from "./__fixtures__/serve/serve-parts.ts";

const OPS = "ops-trigger-waiting-token-0123456789";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

const parts = serveParts();

const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;

describe("a triggered run that waits for a decision", () => {
  test("is recorded waiting with its question (history, status, agentd status), then succeeded with the answer", async () => {
    parts.ws = new CliWorkspace();
    parts.fake = fakeServerCommand({ tools: [{ name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } }] });
    parts.gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) => ({ toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/old" } }] }),
        (req) => ({ text: `tool said: ${req.lastToolResult}` }),
      ],
    });
    parts.ws.writeConfig({
      mcpServers: { fs: parts.fake.config },
      approvals: { rules: [{ tool: "fs/delete_*", decision: "ask" }] },
      triggers: { interval: { every: "1s", instruction: "nightly cleanup", maxRuns: 1 } },
    });
    const ops = join(parts.ws.dir, "operators.txt");
    writeFileSync(ops, `${OPS}\n`);
    const serve = await startServe(["--http", "127.0.0.1:0", "--operator-tokens", ops, "--grace", "1s"], {
      env: {
        AGENT_INTELLIGENCE: parts.gateway.url,
        AGENT_DIALECT: "openai",
        AGENT_MODEL: "m",
        AGENT_API_KEY: "k",
        XDG_STATE_HOME: join(parts.ws.dir, "state"),
      },
      cwd: parts.ws.dir,
    });
    const asked = await serve.waitForEvent((e) => e.event === "approval.requested");
    await serve.waitForEvent((e) => e.event === "run.end" && e.stopReason === "waiting");
    const session = await openSession(serve.url, bearer(OPS));
    let id = 10;
    const read = async (uri: string) => {
      const r = (await call(serve.url, session, ++id, "resources/read", { uri })).response as Record<string, any>;
      return JSON.parse(r.result.contents[0].text) as Record<string, any>;
    };
    const [listed] = (await read("agent://runs?via=trigger")).runs as Array<Record<string, any>>;
    expect(listed).toMatchObject({ status: "waiting", via: "trigger", waitingOn: ["fs/delete_file"] });
    const runId = listed!.runId as string;
    const waiting = await read(`agent://runs/${runId}`);
    expect(waiting).toMatchObject({ status: "waiting", approvals: [{ requestId: asked.requestId, tool: "fs/delete_file" }] });
    expect(waiting.approvals[0].decision).toBeUndefined();
    expect(waiting.result).toBeUndefined();
    expect(await read("agent://status")).toMatchObject({ running: [], waiting: [runId], runsSucceeded: 0 });
    const status = await parts.ws.run(["status", "--json", "--url", String(serve.url), "--token-file", ops]);
    expect(status.code).toBe(0);
    const snap = JSON.parse(status.stdout) as { waiting: Array<Record<string, unknown>> };
    expect(snap.waiting).toMatchObject([{ runId, status: "waiting", waitingOn: ["fs/delete_file"] }]);

    const decided = (
      await call(serve.url, session, ++id, "tools/call", {
        name: "agent.decide",
        arguments: { approvalId: asked.requestId, decision: "approve", reason: "expected" },
      })
    ).response as Record<string, any>;
    expect(decided.result?.isError).toBeFalsy();
    await serve.waitForEvent((e) => e.event === "approvals.run-resumed");
    const done = await read(`agent://runs/${runId}`);
    expect(done).toMatchObject({
      status: "succeeded",
      via: "trigger",
      result: { stopReason: "final", text: expect.stringContaining("deleted /srv/old") },
      approvals: [{ requestId: asked.requestId, decision: "approve", reason: "expected" }],
    });
    expect(await read("agent://status")).toMatchObject({ waiting: [], runsSucceeded: 1 });
  }, 120_000);
});
