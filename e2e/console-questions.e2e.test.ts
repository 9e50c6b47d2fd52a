/**
 * What the agent waits on, answered from the console, in a real headless Chromium against a real
 * `agentd serve --http --a2a --console` with the fake gateway and server-everything (a child we did not
 * write) as the MCP server, over loopback. Its `trigger-elicitation-request` tool elicits during the call
 * under `capabilities.elicitation: "operator"`, so an A2A task of Alice's waits in `input-required`:
 * - the operator sees the question on the Questions page (the navigation counts it), answers it with the
 *   form drawn from its schema, and the tool receives the answer and the run finishes;
 * - a second task is declined from its run's page, where its question shows with the same actions;
 * - Alice sees her own questions but no action; Bob sees none of hers;
 * - before the first run ends, the Overview's spend says prices are configured ("no priced run yet").
 * With AGENTD_CONSOLE_SCREENSHOTS=DIR set, the Questions page is photographed into DIR.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import type { RecordedRequest, StaticTurn } from "@agentd/testkit";
import { REPO_ROOT } from "@agentd/test-support/cli-process";
import { serveWorld, toolLike } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const CHROMIUM = spawnSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).stdout.trim() || undefined;
const EVERYTHING = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const SHOTS = process.env.AGENTD_CONSOLE_SCREENSHOTS ? resolve(REPO_ROOT, process.env.AGENTD_CONSOLE_SCREENSHOTS) : undefined;
const ALICE = "alice-questions-token-0123456789";
const BOB = "bob-questions-token-0123456789";
const OPS = "ops-questions-token-0123456789";

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
let serve: ServeProcess | undefined;
let browser: Browser | undefined;

/** Call the eliciting tool; once it returned, answer with what it said. */
const route = (req: RecordedRequest): StaticTurn =>
  req.lastToolResult !== undefined
    ? { text: `the tool said: ${req.lastToolResult}` }
    : { toolCalls: [{ name: toolLike(req, "trigger-elicitation-request"), arguments: {} }] };

/** The world the tests below share: started only when they run (the describe is skipped without Chromium). */
async function setUp(): Promise<void> {
  world = await serveWorld([route], { onExhausted: "repeat-last" });
  world.ws.writeConfig({
    mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
    capabilities: { elicitation: "operator" },
    model: { prices: { inputPerMTokUsd: 3, outputPerMTokUsd: 15 } },
  });
  const users = join(world.ws.dir, "tokens.txt");
  const ops = join(world.ws.dir, "operators.txt");
  writeFileSync(users, `${ALICE}\n${BOB}\n`);
  writeFileSync(ops, `${OPS}\n`);
  serve = await startServe(
    ["--http", "127.0.0.1:0", "--a2a", "--console", "--auth-tokens", users, "--operator-tokens", ops, "--grace", "1s"],
    { env: world.env, cwd: world.ws.dir },
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
  await world?.close();
}, 60_000);

/** Alice's A2A message: answered when the task waits on the operator (input-required). */
async function aliceAsks(text: string): Promise<{ id: string; state: string }> {
  const res = await fetch(`${serve!.url.origin}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ALICE}`, "a2a-version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } },
    }),
  });
  const body = (await res.json()) as { result: { task: { id: string; status: { state: string } } } };
  return { id: body.result.task.id, state: body.result.task.status.state };
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

const card = (page: Page, taskId: string) => page.locator(`article[data-question="${taskId}"]`);

describe.skipIf(!CHROMIUM || !Bun.file(EVERYTHING).size)("what the agent waits on, answered in headless Chromium", () => {
  beforeAll(setUp, 120_000);
  test("the operator answers a server's question from the Questions page; the tool gets the answer and the run finishes", async () => {
    const asked = await aliceAsks("Sign me up");
    expect(asked.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const { page, errors } = await open(OPS);
    // No run has ended yet: the spend says prices are configured, not "tokens only".
    expect(await page.locator("#spend-start").textContent()).toBe("no priced run yet");
    expect(await page.locator("#spend-today").textContent()).toBe("no priced run yet");
    await page.getByRole("link", { name: "Questions (1)" }).click();
    const question = card(page, asked.id);
    await question.waitFor();
    expect(await question.locator(".question-text").textContent()).toBe("Please provide inputs for the following fields:");
    expect(await question.locator("h3").textContent()).toBe("Question from everything");
    // The form is drawn from the requested schema: defaults filled in, the choices offered.
    expect(await page.locator(`[id="${asked.id}-integer"]`).inputValue()).toBe("42");
    await page.locator(`[id="${asked.id}-name"]`).fill("Grace Hopper");
    await shot(page, "questions-elicitation");
    await question.getByRole("button", { name: "Send answer" }).click();
    await page.locator("#pending-elicitations").getByText("no server waits for an operator's answer").waitFor();
    expect(await page.getByRole("link", { name: "Questions", exact: true }).count()).toBe(1);
    // The run's page: the tool got the answer, the run finished.
    await page.goto(`${serve!.url.origin}/console#/run/${encodeURIComponent("bearer:bearer#0")}/${asked.id}`);
    await page.locator(".card .status-succeeded").waitFor();
    const answer = (await page.locator("#run-answer").textContent()) ?? "";
    expect(answer).toContain("- Name: Grace Hopper");
    expect(answer).toContain("- Favorite Integer: 42");
    expect(serve!.events().filter((e) => e.event === "a2a.operator" && e.method === "answer")).toEqual([
      expect.objectContaining({ principal: "bearer:operator#0", task: asked.id, action: "accept" }),
    ]);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  test("a run's page shows what it waits on with the same actions; Alice sees hers without actions, Bob none", async () => {
    const asked = await aliceAsks("Sign me up again");
    expect(asked.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const runPath = `#/run/${encodeURIComponent("bearer:bearer#0")}/${asked.id}`;
    // Alice: her question, no form, no button; the same on her run's page.
    const alice = await open(ALICE);
    await alice.page.getByRole("link", { name: "Questions (1)" }).click();
    await card(alice.page, asked.id).waitFor();
    expect(await card(alice.page, asked.id).locator("form, button").count()).toBe(0);
    await alice.page.goto(`${serve!.url.origin}/console${runPath}`);
    await alice.page.locator("#run-questions").waitFor();
    expect(await alice.page.locator("#run-questions button").count()).toBe(0);
    expect(alice.errors).toEqual([]);
    await alice.page.context().close();
    // Bob: nothing of Alice's.
    const bob = await open(BOB);
    await bob.page.getByRole("link", { name: "Questions", exact: true }).click();
    await bob.page.locator("#pending-elicitations").getByText("no server waits for an operator's answer").waitFor();
    expect(await bob.page.locator("article.question").count()).toBe(0);
    const refused = await bob.page.evaluate(
      async ([t, id]) =>
        (
          await fetch("/console/api/answer", {
            method: "POST",
            headers: { authorization: `Bearer ${t}`, "content-type": "application/json" },
            body: JSON.stringify({ taskId: id, principal: "bearer:bearer#0", action: "decline" }),
          })
        ).status,
      [BOB, asked.id] as const,
    );
    expect(refused).toBe(403);
    await bob.page.context().close();
    // The operator declines it from the run's page.
    const { page, errors } = await open(OPS);
    await page.goto(`${serve!.url.origin}/console${runPath}`);
    await page.locator("#run-questions").waitFor();
    await page.locator("#run-questions").getByRole("button", { name: "Decline" }).click();
    await page.locator(".card .status-succeeded").waitFor();
    expect(await page.locator("#run-answer").textContent()).toContain("declined");
    expect(await page.locator("#run-questions").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);
});
