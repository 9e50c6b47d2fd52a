/**
 * The operator's console in a real headless Chromium (Debian's `chromium`, driven by playwright-core; no
 * browser is downloaded) against a real `agentd serve --http --console` with the fake gateway, the
 * recording MCP server and a cron trigger, over loopback:
 * - every page loads with no console error; a run started over MCP appears live and its detail matches
 *   the served record; the cron trigger shows its next firing; cancelling from the page cancels the run;
 * - a non-operator token sees none of another principal's runs, and the API answers its actions 403;
 * - with `model.prices`, spend shows in dollars on the Overview and per run; past the newest 200 runs the Runs
 *   page offers older pages; with tracing on and `telemetry.traceUrl`, a run's trace id links to the backend.
 * With AGENTD_CONSOLE_SCREENSHOTS=DIR set, each page is photographed into DIR (docs/console holds them).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { call, openSession, type RawSession } from "@agentd/test-support/raw-mcp-http";
import { REPO_ROOT } from "@agentd/test-support/cli-process";
import { serveWorld, toolLike } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const CHROMIUM = spawnSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).stdout.trim() || undefined;
const SHOTS = process.env.AGENTD_CONSOLE_SCREENSHOTS ? resolve(REPO_ROOT, process.env.AGENTD_CONSOLE_SCREENSHOTS) : undefined;
const ALICE = "alice-console-token-0123456789";
const BOB = "bob-console-token-0123456789";
const OPS = "ops-console-token-0123456789";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let origin = "";
/** An OTLP receiver that takes every export (tracing on, so runs carry a trace id). */
let otlp: ReturnType<typeof Bun.serve> | undefined;
const TRACE_URL = "https://traces.example.com/trace/{traceId}";

/** The world the tests below share: started only when they run (the describe is skipped without Chromium). */
async function setUp(): Promise<void> {
  world = await serveWorld(
    [
      (req) => {
        if (req.lastToolResult !== undefined) return { text: `slow said ${req.lastToolResult}` };
        const instruction = req.messages.find((m) => m.role === "user")?.text ?? "";
        return instruction.includes("slow")
          ? { toolCalls: [{ name: toolLike(req, "slow"), arguments: { ms: 120_000 } }] }
          : { text: `done: ${instruction}` };
      },
    ],
    { onExhausted: "repeat-last" },
  );
  otlp = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response("{}", { headers: { "content-type": "application/json" } }),
  });
  world.ws.writeConfig({
    // Prices in dollars per million tokens: each run's spend (the fake gateway reports usage) in dollars.
    model: { prices: { inputPerMTokUsd: 3, outputPerMTokUsd: 15 } },
    mcpServers: { rec: world.ws.recordingServer() },
    triggers: { schedules: [{ cron: "0 3 1 1 *", instruction: "new year's report" }] },
    serve: { runHistory: { maxRuns: 400 } },
    telemetry: { traceUrl: TRACE_URL },
  });
  const users = join(world.ws.dir, "tokens.txt");
  const ops = join(world.ws.dir, "operators.txt");
  writeFileSync(users, `${ALICE}\n${BOB}\n`);
  writeFileSync(ops, `${OPS}\n`);
  serve = await startServe(["--http", "127.0.0.1:0", "--console", "--auth-tokens", users, "--operator-tokens", ops, "--grace", "1s"], {
    env: { ...world.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlp.port}`, OTEL_METRICS_EXPORTER: "none" },
    cwd: world.ws.dir,
  });
  origin = serve.url.origin;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    timeout: 60_000,
  });
}

afterAll(async () => {
  await browser?.close();
  await stopAllServe();
  await world?.close();
  await otlp?.stop(true);
}, 60_000);

/** A page with its console errors and page errors collected. */
async function open(tokenValue: string, width = 1280, colorScheme: "light" | "dark" = "light"): Promise<{ page: Page; errors: string[] }> {
  const context = await browser!.newContext({ viewport: { width, height: 860 }, colorScheme });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
  page.on("pageerror", (e) => void errors.push(e.message));
  page.on("response", (r) => void (r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`)));
  page.on("dialog", (d) => void d.accept());
  await page.goto(`${origin}/console`);
  await page.getByLabel("Bearer token").fill(tokenValue);
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

const readRun = async (s: RawSession, id: number, runId: string) =>
  JSON.parse((await call(serve!.url, s, id, "resources/read", { uri: `agent://runs/${runId}` })).response.result.contents[0].text);

describe.skipIf(!CHROMIUM)("the console in headless Chromium", () => {
  beforeAll(setUp, 120_000);
  test("the operator's pages load clean; a run started over MCP appears live and its detail matches; the cron trigger shows its next firing; cancel from the page cancels the run", async () => {
    const { page, errors } = await open(OPS);
    expect(await page.getByText("bearer:operator#0 (operator)").count()).toBe(1);
    const alice = await openSession(serve!.url, bearer(ALICE));

    // A run started over MCP while the Runs page is open shows up without a reload.
    await page.getByRole("link", { name: "Runs", exact: true }).click();
    await page.getByRole("heading", { name: "Runs", exact: true }).waitFor();
    const ran = await call(serve!.url, alice, 1, "tools/call", {
      name: "agent.run",
      arguments: { instruction: "summarise the inbox", runId: "inbox-1" },
    });
    expect(ran.response.result.content[0].text).toBe("done: summarise the inbox");
    await page.getByRole("link", { name: "inbox-1" }).waitFor();
    await shot(page, "runs");

    // Its detail is the served record.
    await page.getByRole("link", { name: "inbox-1" }).click();
    await page.getByRole("heading", { name: "Run inbox-1", exact: true }).waitFor();
    const record = await readRun(alice, 2, "inbox-1");
    expect(await page.locator("#run-instruction").textContent()).toBe(record.instruction);
    expect(await page.locator("#run-answer").textContent()).toBe(record.result.text);
    expect(await page.getByText("bearer:bearer#0").count()).toBeGreaterThan(0);
    await shot(page, "run-detail");

    // The cron trigger's next firing, as the snapshot has it.
    await page.getByRole("link", { name: "Triggers" }).click();
    await page.getByRole("heading", { name: "Triggers", exact: true }).waitFor();
    const nextFire = await page.evaluate(async (t) => {
      const snap = await (await fetch("/console/api/snapshot", { headers: { authorization: `Bearer ${t}` } })).json();
      return { iso: snap.triggers[0].nextFire as string, shown: new Date(snap.triggers[0].nextFire).toLocaleString() };
    }, OPS);
    expect(new Date(nextFire.iso).getUTCMonth()).toBe(0);
    expect(new Date(nextFire.iso).getUTCHours()).toBe(3);
    expect(await page.locator(".next-fire").first().textContent()).toBe(nextFire.shown);
    expect(await page.getByText("cron 0 3 1 1 *").count()).toBe(1);
    await shot(page, "triggers");
    // Pause and resume it from the page: the table follows.
    await page.getByRole("button", { name: "Pause cron:0 3 1 1 *" }).click();
    await page.getByRole("button", { name: "Resume cron:0 3 1 1 *" }).waitFor();
    expect(await page.locator(".status-paused").count()).toBeGreaterThan(0);
    await page.getByRole("button", { name: "Resume cron:0 3 1 1 *" }).click();
    await page.getByRole("button", { name: "Pause cron:0 3 1 1 *" }).waitFor();
    expect(
      serve!
        .events()
        .filter((e) => e.event === "a2a.operator" && (e.method === "agentd/pause" || e.method === "agentd/resume"))
        .map((e) => e.method),
    ).toEqual(["agentd/pause", "agentd/resume"]);

    // A slow run, cancelled from its detail page: the MCP caller gets the failure.
    const slow = call(serve!.url, alice, 3, "tools/call", { name: "agent.run", arguments: { instruction: "be slow", runId: "slow-1" } });
    await serve!.waitForEvent((e) => e.event === "tool.call.start");
    await page.goto(`${origin}/console#/run/${encodeURIComponent("bearer:bearer#0")}/slow-1`);
    await page.getByRole("button", { name: "Cancel run" }).click();
    const cancelled = await slow;
    expect(cancelled.response.result?.isError ?? cancelled.response.error !== undefined).toBe(true);
    await page.locator("#run-error").waitFor();
    expect(await page.locator("#run-error").textContent()).toContain("E_ABORTED");
    expect((await readRun(alice, 4, "slow-1")).status).toBe("failed");
    expect(
      serve!.events().some((e) => e.event === "a2a.operator" && e.method === "agentd/cancel" && e.principal === "bearer:operator#0"),
    ).toBe(true);

    // The other pages (the first by keyboard).
    await page.getByRole("link", { name: "Overview" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Overview", exact: true }).waitFor();
    await shot(page, "overview");
    // Reload from the page: the banner reports what changed and what needs a restart.
    await page.getByRole("button", { name: "Reload configuration" }).click();
    await page.getByText(/^reload: \{/).waitFor();
    expect(serve!.events().some((e) => e.event === "a2a.operator" && e.method === "agentd/reload")).toBe(true);
    await page.getByRole("link", { name: "Subagents and tasks" }).click();
    await page.getByRole("heading", { name: "Subagents and tasks", exact: true }).waitFor();
    await shot(page, "subagents");
    await page.getByRole("link", { name: "Servers" }).click();
    await page.getByRole("heading", { name: "Servers", exact: true }).waitFor();
    await page.getByRole("cell", { name: "rec", exact: true }).waitFor();
    await shot(page, "servers");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  test("dark mode follows prefers-color-scheme", async () => {
    const { page, errors } = await open(OPS, 1280, "dark");
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(13, 17, 23)");
    await shot(page, "overview-dark");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);

  test("a non-operator sees only its own runs and may not act", async () => {
    const { page, errors } = await open(BOB, 390);
    await page.getByRole("link", { name: "Runs", exact: true }).click();
    await page.getByRole("heading", { name: "Runs", exact: true }).waitFor();
    const bob = await openSession(serve!.url, bearer(BOB));
    await call(serve!.url, bob, 1, "tools/call", { name: "agent.run", arguments: { instruction: "bob's own", runId: "bob-1" } });
    await page.getByRole("link", { name: "bob-1" }).waitFor();
    await shot(page, "runs-phone");
    // Alice's runs (from the first test) are held, and none of them is shown.
    expect(await page.getByRole("link", { name: "inbox-1" }).count()).toBe(0);
    // The page itself made no failing request (the refused calls below are this test's own).
    expect(errors).toEqual([]);
    const api = await page.evaluate(async (t) => {
      const h = { authorization: `Bearer ${t}` };
      const snap = await (await fetch("/console/api/snapshot", { headers: h })).json();
      const foreign = await fetch(`/console/api/run?id=inbox-1&principal=${encodeURIComponent("bearer:bearer#0")}`, { headers: h });
      const cancel = await fetch("/console/api/cancel", {
        method: "POST",
        headers: { ...h, "content-type": "application/json" },
        body: JSON.stringify({ all: true }),
      });
      const pause = await fetch("/console/api/pause", {
        method: "POST",
        headers: { ...h, "content-type": "application/json" },
        body: "{}",
      });
      return {
        runs: snap.runs.map((r: { runId: string; principal: string }) => `${r.principal} ${r.runId}`),
        triggers: snap.triggers,
        foreign: foreign.status,
        cancel: cancel.status,
        pause: pause.status,
      };
    }, BOB);
    expect(api).toEqual({ runs: ["bearer:bearer#1 bob-1"], triggers: undefined, foreign: 404, cancel: 403, pause: 403 });
    await page.context().close();
  }, 120_000);

  test("spend in dollars on the Overview and per run, a run's trace id linking to the trace page, and older runs past the newest 200", async () => {
    const alice = await openSession(serve!.url, bearer(ALICE));
    // 205 more runs of one principal: the snapshot holds the newest 200, the rest are a page away.
    for (let i = 0; i < 205; i++)
      await call(serve!.url, alice, 100 + i, "tools/call", {
        name: "agent.run",
        arguments: { instruction: `batch ${i}`, runId: `batch-${i}` },
      });
    const record = await readRun(alice, 1000, "batch-204");
    expect(record.detail.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(record.detail.costUsd).toBeGreaterThan(0);

    const { page, errors } = await open(OPS);
    // Spend: since start and today, in dollars (every run here had a price).
    const money = /^\$\d+\.\d{2,4}$/;
    expect(await page.locator("#spend-start").textContent()).toMatch(money);
    expect(await page.locator("#spend-today").textContent()).toMatch(money);
    const snap = await page.evaluate(async (t) => {
      const s = await (await fetch("/console/api/snapshot", { headers: { authorization: `Bearer ${t}` } })).json();
      return { costUsd: s.overview.status.costUsd as number, runs: s.runs.length as number, cursor: s.runsCursor as string | undefined };
    }, OPS);
    expect(snap.costUsd).toBeGreaterThan(0);
    expect(await page.locator("#spend-start").textContent()).toBe(
      `$${snap.costUsd < 0.01 ? snap.costUsd.toFixed(4) : snap.costUsd.toFixed(2)}`,
    );
    expect(snap.runs).toBe(200);
    expect(snap.cursor).toBeDefined();

    // A run's detail: its cost in dollars, its trace id a link to the configured trace page.
    await page.goto(`${origin}/console#/run/${encodeURIComponent("bearer:bearer#0")}/batch-204`);
    await page.getByRole("heading", { name: "Run batch-204", exact: true }).waitFor();
    expect(await page.locator("#run-cost").textContent()).toBe(
      `$${record.detail.costUsd < 0.01 ? record.detail.costUsd.toFixed(4) : record.detail.costUsd.toFixed(2)}`,
    );
    const link = page.locator("#trace-link");
    expect(await link.textContent()).toBe(record.detail.traceId);
    expect(await link.getAttribute("href")).toBe(TRACE_URL.replace("{traceId}", record.detail.traceId));
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    await shot(page, "run-detail");

    // The Runs page: the newest 200, then older pages on demand, down to the first run of the history.
    await page.getByRole("link", { name: "Runs", exact: true }).click();
    await page.getByRole("heading", { name: "Runs", exact: true }).waitFor();
    expect(await page.getByRole("link", { name: "batch-204", exact: true }).count()).toBe(1);
    expect(await page.getByRole("link", { name: "inbox-1", exact: true }).count()).toBe(0);
    await page.getByRole("button", { name: "Older runs" }).click();
    await page.getByRole("heading", { name: /^Older runs/ }).waitFor();
    await page.getByRole("link", { name: "inbox-1", exact: true }).waitFor();
    expect(await page.getByRole("link", { name: "batch-0", exact: true }).count()).toBe(1);
    expect(await page.getByText("no older run").count()).toBe(1);
    // Filtered: the older pages hold the failed runs only.
    await page.getByLabel("Status").selectOption("failed");
    await page.getByRole("button", { name: "Older runs" }).click();
    await page.getByRole("heading", { name: /^Older runs/ }).waitFor();
    await page.getByRole("link", { name: "slow-1", exact: true }).waitFor();
    expect(await page.getByRole("link", { name: "inbox-1", exact: true }).count()).toBe(0);
    await shot(page, "runs-older");
    expect(errors).toEqual([]);
    await page.context().close();
  }, 180_000);
});
