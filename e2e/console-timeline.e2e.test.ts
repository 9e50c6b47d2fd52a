/**
 * A run's story in the console, in a real headless Chromium against a real `agentd serve --http --console`
 * with the fake gateway, the recording MCP server and a real subagent process, over loopback:
 * - a run whose first model request is retried (a 500), then calls two tools at once, then spawns a subagent
 *   and waits for it, then answers: its timeline draws every step in order, the retry as a retry, the model's text of each turn,
 *   the subagent nested under the call that spawned it, and the raw record one click away;
 * - a structured-output run whose answers never match the schema: the page names the failing step in words,
 *   with the model's text of each retry.
 * With AGENTD_CONSOLE_SCREENSHOTS=DIR set, the timelines are photographed into DIR.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import type { RecordedRequest, StaticTurn } from "@agentd/testkit";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";
import { REPO_ROOT } from "@agentd/test-support/cli-process";
import { serveWorld, toolLike } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const CHROMIUM = spawnSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).stdout.trim() || undefined;
const SHOTS = process.env.AGENTD_CONSOLE_SCREENSHOTS ? resolve(REPO_ROOT, process.env.AGENTD_CONSOLE_SCREENSHOTS) : undefined;
const ALICE = "alice-timeline-token-0123456789";
const OPS = "ops-timeline-token-0123456789";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
let serve: ServeProcess | undefined;
let browser: Browser | undefined;
/** The story run's first request fails once with a 500 (the adapter retries it). */
let faulted = false;

/** One gateway for every conversation: by its first user message and how many answers it holds. */
function route(req: RecordedRequest): StaticTurn {
  const user = req.messages.find((m) => m.role === "user")?.text ?? "";
  const step = req.messages.filter((m) => m.role === "assistant").length;
  if (user.startsWith("CHILD:")) return { text: "child counted 3 apples" };
  if (user.startsWith("Shape")) return { text: `not json, try ${step + 1}` };
  if (user.startsWith("Tell the story")) {
    if (step === 0 && !faulted) return ((faulted = true), { fault: "server-error" });
    if (step === 0)
      return {
        text: "Looking both up at once.",
        toolCalls: [
          { name: toolLike(req, "echo"), arguments: { text: "first" } },
          { name: toolLike(req, "echo"), arguments: { text: "second" } },
        ],
      };
    if (step === 1)
      return { toolCalls: [{ name: toolLike(req, "subagent_spawn"), arguments: { instruction: "CHILD: count the apples", async: true } }] };
    if (step === 2) {
      const id = /Started subagent (sa-[0-9a-f]+)/.exec(JSON.stringify(req.messages))?.[1] ?? "sa-missing";
      return { toolCalls: [{ name: toolLike(req, "subagent_wait"), arguments: { id } }] };
    }
    return { text: "STORY DONE: both echoed, the child counted." };
  }
  return { text: `done: ${user}` };
}

/** The world the tests below share: started only when they run (the describe is skipped without Chromium). */
async function setUp(): Promise<void> {
  world = await serveWorld([route], { onExhausted: "repeat-last" });
  world.ws.writeConfig({ mcpServers: { rec: world.ws.recordingServer() }, subagents: { maxDepth: 1 } });
  const users = join(world.ws.dir, "tokens.txt");
  const ops = join(world.ws.dir, "operators.txt");
  writeFileSync(users, `${ALICE}\n`);
  writeFileSync(ops, `${OPS}\n`);
  serve = await startServe(["--http", "127.0.0.1:0", "--console", "--auth-tokens", users, "--operator-tokens", ops, "--grace", "1s"], {
    // Conversations are kept in the local state directory: the workspace's.
    env: { ...world.env, XDG_STATE_HOME: join(world.ws.dir, "state") },
    cwd: world.ws.dir,
  });
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

/** Open a run's page from the Runs table. */
async function openRun(page: Page, runId: string): Promise<void> {
  await page.getByRole("link", { name: "Runs", exact: true }).click();
  await page.getByRole("link", { name: runId }).click();
  await page.locator("#run-timeline").waitFor();
}

describe.skipIf(!CHROMIUM)("a run's timeline in headless Chromium", () => {
  beforeAll(setUp, 120_000);
  test("a retried request, two tool calls and a subagent: every step in order, with the model's text", async () => {
    const alice = await openSession(serve!.url, bearer(ALICE));
    const ran = await call(serve!.url, alice, 1, "tools/call", {
      name: "agent.run",
      arguments: { instruction: "Tell the story", runId: "story-1" },
    });
    expect(ran.response.result.content[0].text).toBe("STORY DONE: both echoed, the child counted.");
    const { page, errors } = await open(OPS);
    await openRun(page, "story-1");
    const steps = await page
      .locator("#run-timeline > li")
      .evaluateAll((els) =>
        els.map((e) => `${e.getAttribute("data-step")?.replace(/^tool-.*/, "tool")} ${e.querySelector(".step-label")?.textContent}`),
      );
    expect(steps).toEqual([
      "turn-1 Turn 1",
      "tool ↳ rec/echo",
      "tool ↳ rec/echo",
      "turn-2 Turn 2",
      expect.stringMatching(/^tool ↳ .*subagent[._]spawn$/),
      "turn-3 Turn 3",
      expect.stringMatching(/^tool ↳ .*subagent[._]wait$/),
      "turn-4 Turn 4",
    ]);
    const turn1 = page.locator('[data-step="turn-1"]');
    expect(await turn1.locator(".retry").textContent()).toMatch(/^retry 1 of the model request after HTTP 500 /);
    expect(await turn1.locator(".model-text").textContent()).toBe("Looking both up at once.");
    expect(await page.locator('[data-step="turn-4"] .model-text').textContent()).toBe("STORY DONE: both echoed, the child counted.");
    const results = await page.locator("#run-timeline .result").allTextContents();
    expect(results.slice(0, 2).map((r) => r.includes("first") || r.includes("second"))).toEqual([true, true]);
    expect(await page.locator("#run-timeline .args").first().textContent()).toContain('"text"');
    // The subagent, nested under the call that spawned it, with its own figures.
    expect(await page.locator("#run-timeline .subagent").textContent()).toMatch(
      /^subagent sa-[0-9a-f]+ · completed · 1 turns · 0 tool calls · \d+ tokens$/,
    );
    expect(await page.locator("#run-failed-step").count()).toBe(0);
    await shot(page, "run-timeline");
    // The raw record, one click away.
    await page.locator("#raw-record summary").click();
    expect(JSON.parse((await page.locator("#raw-record pre").textContent()) ?? "{}")).toMatchObject({ runId: "story-1", toolCalls: 4 });
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  test("a structured-output run that never matches the schema names the failing step, with the text of each retry", async () => {
    const alice = await openSession(serve!.url, bearer(ALICE));
    await call(serve!.url, alice, 1, "tools/call", {
      name: "agent.run",
      arguments: {
        instruction: "Shape the answer",
        runId: "shaped-1",
        outputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      },
    });
    const { page, errors } = await open(OPS);
    await openRun(page, "shaped-1");
    expect(await page.locator("#run-failed-step").textContent()).toStartWith(
      "Failed at turn 3 (the model's final answer did not match the output schema): E_RUN_FAILED: the model's final answer did not match the output schema after 2 retries",
    );
    expect(await page.locator("#run-timeline .step-label").allTextContents()).toEqual([
      "Turn 1",
      "Turn 2 · retry 1 of the final answer",
      "Turn 3 · retry 2 of the final answer",
    ]);
    expect(await page.locator("#run-timeline .model-text").allTextContents()).toEqual([
      "not json, try 1",
      "not json, try 2",
      "not json, try 3",
    ]);
    await shot(page, "run-failed");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  test("the Overview's charts count the known history, and each bar links to the runs it counts", async () => {
    const { page, errors } = await open(OPS);
    await page.locator("#charts").waitFor();
    const sum = (sel: string) => page.locator(sel).evaluateAll((els) => els.reduce((n, e) => n + Number(e.getAttribute("data-count")), 0));
    // The history: story-1 succeeded, shaped-1 failed (the two tests above).
    expect(await sum('[data-chart="hour"][data-outcome="succeeded"]')).toBe(1);
    expect(await sum('[data-chart="hour"][data-outcome="failed"]')).toBe(1);
    expect(await sum('[data-chart="day"]')).toBe(2);
    const servers = await page
      .locator('[data-chart="server"]')
      .evaluateAll((els) =>
        els.map((e) => `${e.getAttribute("data-server")} ${e.getAttribute("data-count")} ${e.getAttribute("data-errors")}`),
      );
    expect(servers.sort()).toEqual(["agent 2 0", "rec 2 0"]);
    expect(await page.locator('[data-chart="duration"]').count()).toBe(2);
    await shot(page, "overview-charts");
    // A failed bar: the Runs page with the failed run of that hour only.
    await page.locator('[data-chart="hour"][data-outcome="failed"]').first().click();
    await page.locator("#chart-filter").waitFor();
    expect(await page.locator("#runs-data tbody a").allTextContents()).toEqual(["shaped-1"]);
    // The rec server's bar: the run that called it.
    await page.getByRole("link", { name: "Overview" }).click();
    await page.locator('[data-chart="server"][data-server="rec"]').click();
    await page.locator("#chart-filter").waitFor();
    expect(await page.locator("#runs-data tbody a").allTextContents()).toEqual(["story-1"]);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  test("an operator starts a run from the page and watches it finish on its timeline", async () => {
    const { page, errors } = await open(OPS);
    await page.getByRole("link", { name: "Runs", exact: true }).click();
    await page.getByText("Start a run").click();
    await page.getByLabel("Instruction").fill("started from the page");
    await page.getByLabel("Run id (optional)").fill("page-1");
    await page.getByLabel("Max turns").fill("3");
    await page.getByRole("button", { name: "Start run" }).click();
    await page.getByRole("heading", { name: "Run page-1" }).waitFor();
    await page.locator('[data-step="turn-1"] .model-text').getByText("done: started from the page").waitFor();
    await page.locator(".card .status-succeeded").waitFor();
    expect(serve!.events().some((e) => e.event === "console.run_started" && e.runId === "page-1")).toBe(true);
    // It is in the list, started from the console.
    await page.getByRole("link", { name: "Runs", exact: true }).click();
    await page.getByRole("link", { name: "page-1" }).waitFor();
    await shot(page, "run-started");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  test("a run started in a conversation shows it on its page: the earlier exchange, masked, and the runs that continued it", async () => {
    const { page, errors } = await open(OPS);
    const start = async (runId: string, instruction: string) => {
      await page.getByRole("link", { name: "Runs", exact: true }).click();
      await page.getByText("Start a run").click();
      await page.getByLabel("Instruction").fill(instruction);
      await page.getByLabel("Run id (optional)").fill(runId);
      await page.getByLabel("Conversation (optional)").fill("inbox");
      await page.getByRole("button", { name: "Start run" }).click();
      await page.getByRole("heading", { name: `Run ${runId}` }).waitFor();
      await page.locator(".card .status-succeeded").waitFor();
    };
    await start("conv-1", "remember the word apple; my key is sk-live-0123456789abcdef0123456789");
    await start("conv-2", "which word was it?");
    // The second run's page: its conversation, with the first exchange and both runs.
    const section = page.locator("#run-conversation");
    await section.waitFor();
    expect(await section.locator("h2 code").textContent()).toBe("inbox");
    expect(await section.locator(".conversation-run-links").textContent()).toBe("Runs: conv-1, conv-2");
    const lines = await section.locator("#conversation-exchanges li").allTextContents();
    expect(lines[0]).toStartWith("user remember the word apple; my key is ");
    expect(lines.join("\n")).not.toContain("sk-live-0123456789abcdef0123456789");
    expect(lines).toContain("user which word was it?");
    // The first run's link leads to its own page.
    await section.getByRole("link", { name: "conv-1" }).click();
    await page.getByRole("heading", { name: "Run conv-1" }).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  test("a non-operator sees neither the start form nor others' runs, and may not start one", async () => {
    const { page, errors } = await open(ALICE);
    await page.getByRole("link", { name: "Runs", exact: true }).click();
    await page.getByRole("link", { name: "story-1" }).waitFor();
    expect(await page.locator("#start-run").count()).toBe(0);
    expect(await page.getByText("Start a run").count()).toBe(0);
    // The operator's run (page-1) is not hers to see.
    expect(await page.getByRole("link", { name: "page-1" }).count()).toBe(0);
    expect(errors).toEqual([]);
    const refused = await page.evaluate(async (t) => {
      const r = await fetch("/console/api/start", {
        method: "POST",
        headers: { authorization: `Bearer ${t}`, "content-type": "application/json" },
        body: JSON.stringify({ instruction: "not allowed" }),
      });
      return r.status;
    }, ALICE);
    expect(refused).toBe(403);
    await page.context().close();
  }, 120_000);
});
