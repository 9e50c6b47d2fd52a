/**
 * A graceful stop does not wait on runs that wait durably, over real processes: `agentd serve --http --a2a`
 * with a long grace (60 s), a served MCP `agent.run` and an A2A task whose runs wait for an operator's
 * decision (saved, holding nothing open). SIGTERM ends the process well before the grace — its caller is told
 * the run waits, saved — and a new process on the same state directory resumes the run when the operator
 * decides: the tool is called once and the run finishes.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Role, TaskState, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { fakeServerCommand, startFakeGateway, type RecordedRequest } from "@agentd/testkit";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";
import { startServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";
import { serveParts } from "./__fixtures__/serve/serve-parts.ts";

const ALICE = "alice-drain-token-0123456789";
const OPS = "ops-drain-token-0123456789";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const GRACE_MS = 60_000;

const parts = serveParts();

const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;
const serverCalls = () => (parts.fake?.recordedRequests() ?? []).filter((r) => r.method === "tools/call");

async function world() {
  parts.ws = new CliWorkspace();
  parts.fake = fakeServerCommand({ tools: [{ name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } }] });
  const g = (parts.gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/old" } }] }),
      (req) => ({ text: `tool said: ${req.lastToolResult}` }),
    ],
  }));
  parts.ws.writeConfig({ mcpServers: { fs: parts.fake.config }, approvals: { rules: [{ tool: "fs/delete_*", decision: "ask" }] } });
  const dir = parts.ws.dir;
  writeFileSync(join(dir, "tokens.txt"), `${ALICE}\n`);
  writeFileSync(join(dir, "operators.txt"), `${OPS}\n`);
  return (name: string) =>
    startServe(
      ["--http", "127.0.0.1:0", "--a2a", "--auth-tokens", join(dir, "tokens.txt"), "--operator-tokens", join(dir, "operators.txt")].concat([
        "--grace",
        `${GRACE_MS / 1000}s`,
      ]),
      {
        env: {
          AGENT_INTELLIGENCE: g.url,
          AGENT_DIALECT: "openai",
          AGENT_MODEL: "m",
          AGENT_API_KEY: "k",
          XDG_STATE_HOME: join(dir, "state"),
          POD_NAME: name,
        },
        cwd: dir,
      },
    );
}

/** SIGTERM; resolves with how it ended: its exit, or `"grace"` when it was still up well into the grace. */
async function stopGracefully(serve: ServeProcess): Promise<number | "still running"> {
  process.kill(serve.pid, "SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"still running">((resolve) => (timer = setTimeout(() => resolve("still running"), GRACE_MS / 2)));
  try {
    return await Promise.race([serve.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function decideAndFinish(serve: ServeProcess, id: string) {
  const ops = await openSession(serve.url, bearer(OPS));
  const r = (await call(serve.url, ops, 2, "tools/call", { name: "agent.decide", arguments: { approvalId: id, decision: "approve" } }))
    .response as Record<string, any>;
  expect(r.result?.isError).toBeFalsy();
  await serve.waitForEvent((e) => e.event === "run.end" && e.stopReason === "final");
  expect(serverCalls()).toHaveLength(1);
}

describe("a graceful stop does not wait on runs that wait durably", () => {
  test("a served MCP agent.run waiting: SIGTERM exits before the grace; the caller is told it waits saved; a new process resumes it", async () => {
    const serve = await world();
    const first = await serve("first");
    const alice = await openSession(first.url, bearer(ALICE));
    const answer = call(first.url, alice, 1, "tools/call", { name: "agent.run", arguments: { instruction: "clean up", runId: "job-1" } });
    answer.catch(() => {});
    const asked = await first.waitForEvent((e) => e.event === "approval.requested");
    await first.waitForEvent((e) => e.event === "run.end" && e.stopReason === "waiting");
    expect(await stopGracefully(first)).not.toBe("still running");
    const told = JSON.stringify(await answer.then((a) => a.response).catch((e: Error) => String(e)));
    expect(told).toContain("waits, saved");

    const second = await serve("second");
    await decideAndFinish(second, asked.requestId as string);
  }, 120_000);

  test("an A2A task's run waiting: SIGTERM exits before the grace; a new process resumes it", async () => {
    const serve = await world();
    const first = await serve("first");
    const listening = first.events().find((e) => e.event === "serve.listening")!;
    const fetchImpl = ((input: RequestInfo | URL, init?: RequestInit) =>
      fetch(input, {
        ...init,
        headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${ALICE}` },
      })) as typeof fetch;
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
    );
    const a2a = await factory.createFromUrl(new URL(String(listening.a2a)).origin);
    const task = (await a2a.sendMessage({
      message: {
        messageId: crypto.randomUUID(),
        role: Role.ROLE_USER,
        parts: [{ content: { $case: "text", value: "clean up" }, metadata: undefined, filename: "", mediaType: "" }],
        contextId: "",
        taskId: "",
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      tenant: "",
      configuration: undefined,
      metadata: undefined,
    })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const asked = await first.waitForEvent((e) => e.event === "approval.requested");
    await first.waitForEvent((e) => e.event === "run.end" && e.stopReason === "waiting");
    expect(await stopGracefully(first)).not.toBe("still running");

    const second = await serve("second");
    await decideAndFinish(second, asked.requestId as string);
  }, 120_000);
});
