/**
 * Tool calls that wait for approval, decided from the console, in a real headless Chromium against a real
 * `agentd serve --http --console` (the approval desk in the local state directory) with the fake gateway
 * and the testkit's fake MCP server, whose record file is the server's own account of what reached it. An
 * approval rule asks for `fs/delete_*`; Alice's `agent.run` calls it and waits:
 * - the operator sees the question on the Questions page (tool, server, masked arguments, rule, run link),
 *   approves it with a reason; the server is called with the approved arguments, Alice's call gets the
 *   tool's answer, and the run's page shows the decision (who, what, why);
 * - a second question is denied with a reason from the run's own page; the server never sees that call;
 * - Alice sees her run's question without actions; Bob sees none of hers;
 * - an A2A task waiting for approval (`input-required`) is one question, the desk's, approved the same way.
 * With AGENTD_CONSOLE_SCREENSHOTS=DIR set, the Questions page and the run's decisions are photographed into DIR.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand, type RecordedRequest } from "@agentd/testkit";
import { CliWorkspace, REPO_ROOT } from "@agentd/test-support/cli-process";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const CHROMIUM = spawnSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).stdout.trim() || undefined;
const SHOTS = process.env.AGENTD_CONSOLE_SCREENSHOTS ? resolve(REPO_ROOT, process.env.AGENTD_CONSOLE_SCREENSHOTS) : undefined;
const ALICE = "alice-approvals-token-0123456789";
const BOB = "bob-approvals-token-0123456789";
const OPS = "ops-approvals-token-0123456789";
const ALICE_ID = "bearer:bearer#0";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
let serve: ServeProcess | undefined;
let browser: Browser | undefined;

/** Delete the path the instruction names (with a token among the arguments); then say what the tool said. */
function route(req: RecordedRequest) {
  if (req.lastToolResult !== undefined) return { text: `tool said: ${req.lastToolResult}` };
  const user = req.messages.find((m) => m.role === "user")?.text ?? "";
  const path = /delete (\S+)/.exec(user)?.[1] ?? "/nowhere";
  const name = req.tools.find((n) => n.endsWith("delete_file"))!;
  return { toolCalls: [{ name, arguments: { path, apiKey: "sk-live-0123456789abcdef0123456789" } }] };
}

const serverCalls = () => (fake?.recordedRequests() ?? []).filter((r) => r.method === "tools/call");
const calledPaths = () => serverCalls().map((r) => (r.params as { arguments: { path: string } }).arguments.path);

/** The world the tests below share: started only when they run (the describe is skipped without Chromium). */
async function setUp(): Promise<void> {
  ws = new CliWorkspace();
  fake = fakeServerCommand({ tools: [{ name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } }] });
  gateway = await startFakeGateway({ dialect: "openai", script: [route], onExhausted: "repeat-last" });
  ws.writeConfig({
    mcpServers: { fs: fake.config },
    approvals: { rules: [{ tool: "fs/delete_*", decision: "ask", message: "deletions wait for a person" }] },
  });
  const users = join(ws.dir, "tokens.txt");
  const ops = join(ws.dir, "operators.txt");
  writeFileSync(users, `${ALICE}\n${BOB}\n`);
  writeFileSync(ops, `${OPS}\n`);
  serve = await startServe(
    ["--http", "127.0.0.1:0", "--a2a", "--console", "--auth-tokens", users, "--operator-tokens", ops, "--grace", "1s"],
    {
      env: {
        AGENT_INTELLIGENCE: gateway.url,
        AGENT_DIALECT: "openai",
        AGENT_MODEL: "m",
        AGENT_API_KEY: "k",
        XDG_STATE_HOME: join(ws.dir, "state"),
      },
      cwd: ws.dir,
    },
  );
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run"],
    timeout: 60_000,
  });
}

afterAll(async () => {
  await browser?.close();
  await stopAllServe();
  await gateway?.close();
  fake?.dispose();
  ws?.cleanup();
}, 60_000);

/** Alice's agent.run, started (it answers once its question is decided), and the question's id. */
async function aliceRuns(runId: string, path: string) {
  const from = serve!.events().length;
  const alice = await openSession(serve!.url, { authorization: `Bearer ${ALICE}` });
  const answer = call(serve!.url, alice, 1, "tools/call", { name: "agent.run", arguments: { instruction: `delete ${path}`, runId } });
  const asked = await serve!.waitForEvent((e) => e.event === "approval.requested", from);
  return { answer, id: String(asked.requestId) };
}

async function open(token: string): Promise<{ page: Page; errors: string[] }> {
  const context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
  page.on("pageerror", (e) => void errors.push(e.message));
  await page.goto(`${serve!.url.origin}/console`);
  await page.getByLabel("Bearer token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Overview", exact: true }).waitFor();
  return { page, errors };
}

async function shot(page: Page, name: string): Promise<void> {
  // Screenshots only when asked for (AGENTD_CONSOLE_SCREENSHOTS=DIR: docs/console/ is refreshed that way).
  if (SHOTS) {
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }
}

describe.skipIf(!CHROMIUM)("tool approvals decided from the console, in headless Chromium", () => {
  beforeAll(setUp, 120_000);
  test("the operator approves from the Questions page: the tool is called with those arguments and the run finishes", async () => {
    const { answer, id } = await aliceRuns("job-1", "/srv/old");
    const { page, errors } = await open(OPS);
    await page.getByRole("link", { name: "Questions (1)" }).click();
    const card = page.locator(`article[data-question="${id}"]`);
    await card.waitFor();
    expect(await card.locator("h3").textContent()).toBe("Tool call fs/delete_file");
    const args = JSON.parse((await card.locator(".args").textContent()) ?? "{}");
    expect(args.path).toBe("/srv/old");
    expect(args.apiKey).not.toBe("sk-live-0123456789abcdef0123456789");
    expect(await card.locator("p.muted").first().textContent()).toContain("approvals.rules[0]");
    expect(await card.locator("a.run-link").getAttribute("href")).toBe(`#/run/${encodeURIComponent(ALICE_ID)}/job-1`);
    expect(serverCalls()).toEqual([]);
    await card.getByLabel(/^Reason/).fill("old builds may go");
    await shot(page, "questions");
    await card.getByRole("button", { name: "Approve" }).click();
    const done = await answer;
    expect(done.response.result.content[0].text).toStartWith("tool said: ");
    expect(done.response.result.content[0].text).toContain("deleted /srv/old");
    expect(calledPaths()).toEqual(["/srv/old"]);
    await page.locator("#pending-approvals").getByText("no tool call waits for a decision").waitFor();
    // The run's page: finished, and the decision with who gave it and why.
    await page.goto(`${serve!.url.origin}/console#/run/${encodeURIComponent(ALICE_ID)}/job-1`);
    await page.locator(".card .status-succeeded").waitFor();
    const decision = page.locator("#run-decisions .decision");
    await decision.waitFor();
    expect(await decision.textContent()).toMatch(/^Approved by bearer:operator#0 · .+ · “old builds may go”$/);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  test("denied with a reason from the run's page: the server never sees the call; Alice sees hers without actions, Bob none", async () => {
    const { answer, id } = await aliceRuns("job-2", "/srv/keep");
    const runPath = `#/run/${encodeURIComponent(ALICE_ID)}/job-2`;
    const alice = await open(ALICE);
    await alice.page.goto(`${serve!.url.origin}/console${runPath}`);
    await alice.page.locator(`#run-questions article[data-question="${id}"]`).waitFor();
    expect(await alice.page.locator("#run-questions button, #run-questions input").count()).toBe(0);
    await alice.page.context().close();
    const bob = await open(BOB);
    await bob.page.getByRole("link", { name: "Questions", exact: true }).click();
    await bob.page.locator("#pending-approvals").getByText("no tool call waits for a decision").waitFor();
    expect(await bob.page.locator("article.question").count()).toBe(0);
    await bob.page.context().close();

    const { page, errors } = await open(OPS);
    await page.goto(`${serve!.url.origin}/console${runPath}`);
    const card = page.locator(`#run-questions article[data-question="${id}"]`);
    await card.waitFor();
    await card.getByLabel(/^Reason/).fill("keep the release builds");
    await card.getByRole("button", { name: "Deny" }).click();
    const done = await answer;
    expect(done.response.result.content[0].text).toContain("keep the release builds");
    expect(calledPaths()).toEqual(["/srv/old"]);
    await page.locator(".card .status-succeeded").waitFor();
    const decision = page.locator("#run-decisions .decision");
    await decision.waitFor();
    expect(await decision.textContent()).toMatch(/^Denied by bearer:operator#0 · .+ · “keep the release builds”$/);
    await shot(page, "run-decisions");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  test("an A2A task waiting for approval is listed once, as the desk's question, and approved from the page", async () => {
    const from = serve!.events().length;
    const res = await fetch(`${serve!.url.origin}/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ALICE}`, "a2a-version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "delete /srv/a2a" }] } },
      }),
    });
    const task = ((await res.json()) as { result: { task: { id: string; status: { state: string } } } }).result.task;
    expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const asked = await serve!.waitForEvent((e) => e.event === "approval.requested", from);
    const { page, errors } = await open(OPS);
    await page.getByRole("link", { name: "Questions (1)" }).click();
    const card = page.locator(`article[data-question="${asked.requestId}"]`);
    await card.waitFor();
    expect(await page.locator("#pending-approvals article.question").count()).toBe(1);
    expect(await page.locator('article[data-kind="elicitation"]').count()).toBe(0);
    expect(await card.locator("a.run-link").textContent()).toBe(task.id);
    await card.getByRole("button", { name: "Approve" }).click();
    await page.goto(`${serve!.url.origin}/console#/run/${encodeURIComponent(ALICE_ID)}/${task.id}`);
    await page.locator(".card .status-succeeded").waitFor();
    expect(calledPaths()).toContain("/srv/a2a");
    expect(await page.locator("#run-decisions .decision").textContent()).toStartWith("Approved by bearer:operator#0");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);
});
