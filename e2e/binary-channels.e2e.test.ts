/**
 * The compiled binary (`bun build --compile`: one file) carries the person in the loop and the conversations
 * as the sources do:
 * - `agentd serve` from the binary holds a served run's call for approval; `agentd approvals list` and
 *   `approve`, also from the binary, see and decide it; the tool is then called once, with the approved
 *   arguments, and the caller gets its answer;
 * - `agentd run --continue` from the binary, twice: the follow-up sends the first exchange back to the model;
 * - a served `agent.run` with a `conversationId` (`agentd serve` from the binary) continues it, and
 *   `agent://conversations` lists it with both runs.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type RecordedRequest } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";
import { startServe } from "./__fixtures__/serve/serve-process.ts";
import { serveParts } from "./__fixtures__/serve/serve-parts.ts";
import { COMPILE_FLAGS } from "@agentd/cli/compile-flags";

setDefaultTimeout(120_000);
const dir = mkdtempSync(join(tmpdir(), "agentd-bin-channels-"));
const binary = join(dir, "agentd");
beforeAll(async () => {
  const build = Bun.spawn([process.execPath, "build", ...COMPILE_FLAGS, CLI_MAIN, "--outfile", binary], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`bun build --compile failed: ${err}`);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const parts = serveParts();

const modelEnv = (g: FakeGateway, here: CliWorkspace) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: "openai",
  AGENT_MODEL: "m",
  AGENT_API_KEY: "k",
  XDG_STATE_HOME: join(here.dir, "state"),
});
const toolNamed = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;

test("approvals: a served run's call waits, agentd approvals (the binary) lists and approves it, the tool is called once", async () => {
  const here = new CliWorkspace();
  parts.ws = here;
  parts.fake = fakeServerCommand({ tools: [{ name: "delete_file", text: "deleted {{path}}" }] });
  parts.gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: toolNamed(req, "delete_file"), arguments: { path: "/srv/old" } }] }),
      (req) => ({ text: `tool said: ${req.lastToolResult}` }),
    ],
  });
  here.writeConfig({ mcpServers: { fs: parts.fake.config }, approvals: { rules: [{ tool: "fs/delete_*", decision: "ask" }] } });
  const ops = join(here.dir, "operators.txt");
  writeFileSync(ops, "ops-token-0123456789abcdef\n");
  const serve = await startServe(["--http", "127.0.0.1:0", "--operator-tokens", ops, "--grace", "1s"], {
    env: modelEnv(parts.gateway, here),
    cwd: here.dir,
    binary,
  });
  const session = await openSession(serve.url, { authorization: "Bearer ops-token-0123456789abcdef" });
  const answer = call(serve.url, session, 1, "tools/call", { name: "agent.run", arguments: { instruction: "clean up", runId: "bin-1" } });
  const asked = await serve.waitForEvent((e) => e.event === "approval.requested");
  const id = asked.requestId as string;
  const cli = (args: string[]) => here.run(["approvals", ...args, "--url", serve.url.href, "--token-file", ops], { binary });

  const listed = await cli(["list", "--json"]);
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout)).toMatchObject([
    { state: "pending", request: { id, name: "fs/delete_file", arguments: { path: "/srv/old" } } },
  ]);
  const calls = () => parts.fake!.recordedRequests().filter((r) => r.method === "tools/call");
  expect(calls()).toEqual([]);

  const approved = await cli(["approve", id, "--reason", "expected cleanup"]);
  expect(approved.code).toBe(0);
  expect(approved.stdout).toBe(`${id}: approve by bearer:operator#0\n`);
  const done = (await answer).response;
  expect(done.result.content[0].text).toContain("deleted /srv/old");
  expect(calls().map((r) => (r.params as { arguments: { path: string } }).arguments.path)).toEqual(["/srv/old"]);
});

test("conversations: agentd run --continue (the binary) sends the first exchange back to the model", async () => {
  const here = new CliWorkspace();
  parts.ws = here;
  parts.gateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [(req) => ({ text: `answer to: ${req.messages.at(-1)?.text}` })],
  });
  const config = here.writeConfig({});
  const env = modelEnv(parts.gateway, here);
  const first = await here.run(["run", "--config", config, "--continue", "--json", "Summarise the inbox"], { env, binary });
  expect(first.code).toBe(0);
  const id = JSON.parse(first.stdout).conversationId as string;
  const second = await here.run(["run", "--config", config, "--continue", "--json", "Now draft replies"], { env, binary });
  expect(second.code).toBe(0);
  expect(JSON.parse(second.stdout).conversationId).toBe(id);
  const followUp = parts.gateway.requests[1]!;
  expect(followUp.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
  expect(followUp.messages[1]?.text).toBe("Summarise the inbox");
  expect(followUp.messages[2]?.text).toBe("answer to: Summarise the inbox");
  expect(followUp.messages.at(-1)?.text).toBe("Now draft replies");
});

test("conversations: agent.run with a conversationId on agentd serve (the binary) continues it; agent://conversations lists it", async () => {
  const here = new CliWorkspace();
  parts.ws = here;
  parts.gateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [(req) => ({ text: `answer to: ${req.messages.at(-1)?.text}` })],
  });
  here.writeConfig({});
  const users = join(here.dir, "tokens.txt");
  writeFileSync(users, "alice-token-0123456789abcdef\n");
  const serve = await startServe(["--http", "127.0.0.1:0", "--auth-tokens", users, "--grace", "1s"], {
    env: modelEnv(parts.gateway, here),
    cwd: here.dir,
    binary,
  });
  const alice = await openSession(serve.url, { authorization: "Bearer alice-token-0123456789abcdef" });
  const run = async (id: number, instruction: string) =>
    (await call(serve.url, alice, id, "tools/call", { name: "agent.run", arguments: { instruction, conversationId: "inbox" } })).response
      .result;
  expect((await run(1, "summarise the inbox")).structuredContent.conversationId).toBe("inbox");
  await run(2, "now draft replies");
  expect(parts.gateway.requests[1]!.messages.slice(1).map((m) => m.text)).toEqual([
    "summarise the inbox",
    "answer to: summarise the inbox",
    "now draft replies",
  ]);
  const listed = (await call(serve.url, alice, 3, "resources/read", { uri: "agent://conversations" })).response;
  expect(JSON.parse(listed.result.contents[0].text)).toMatchObject({ conversations: [{ id: "inbox", runs: 2 }] });
});
