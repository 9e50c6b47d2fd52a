/**
 * The console from the compiled binary: `bun build --compile` output serving `serve --http --console`, driven
 * in a real headless Chromium over loopback with the fake gateway and the recording MCP server. The page, its
 * script and stylesheet come from the binary (embedded, nothing read from the sources at run time):
 * - before any run, the Overview's spend says no model prices are configured;
 * - an operator starts a run from the page and watches it on its timeline — a turn with the model's reasoning
 *   summary (the run is not streamed) and a tool call, then the answer;
 * - the Questions page draws (nothing waits), and a non-operator sees neither the start form nor the run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import type { RecordedRequest, StaticTurn } from "@agentd/testkit";
import { CLI_MAIN } from "@agentd/test-support/cli-process";
import { serveWorld, toolLike } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";
import { COMPILE_FLAGS } from "@agentd/cli/compile-flags";

const CHROMIUM = spawnSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).stdout.trim() || undefined;
const ALICE = "alice-binary-token-0123456789";
const OPS = "ops-binary-token-0123456789";
const dir = mkdtempSync(join(tmpdir(), "agentd-console-bin-"));
const binary = join(dir, "agentd");

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
let serve: ServeProcess | undefined;
let browser: Browser | undefined;

/** First a reasoned tool call, then the answer naming what the tool said. */
const route = (req: RecordedRequest): StaticTurn =>
  req.lastToolResult === undefined
    ? {
        reasoning: "The user wants an echo; the rec server has one.",
        toolCalls: [{ name: toolLike(req, "echo"), arguments: { text: "from the binary" } }],
      }
    : { text: `BINARY DONE: ${req.lastToolResult}` };

/** The world the tests below share: started only when they run (the describe is skipped without Chromium). */
async function setUp(): Promise<void> {
  const build = Bun.spawn([process.execPath, "build", ...COMPILE_FLAGS, CLI_MAIN, "--outfile", binary], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`bun build --compile failed: ${err}`);
  world = await serveWorld([route], { onExhausted: "repeat-last" });
  const users = join(world.ws.dir, "tokens.txt");
  const ops = join(world.ws.dir, "operators.txt");
  writeFileSync(users, `${ALICE}\n`);
  writeFileSync(ops, `${OPS}\n`);
  serve = await startServe(["--http", "127.0.0.1:0", "--console", "--auth-tokens", users, "--operator-tokens", ops, "--grace", "1s"], {
    env: world.env,
    cwd: world.ws.dir,
    binary,
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
  rmSync(dir, { recursive: true, force: true });
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

describe.skipIf(!CHROMIUM)("the console from the compiled binary, in headless Chromium", () => {
  beforeAll(setUp, 240_000);
  test("an operator starts a run from the page and watches its reasoning, its tool call and its answer", async () => {
    const { page, errors } = await open(OPS);
    expect(await page.locator("#spend-start").textContent()).toBe("tokens only (no model prices)");
    await page.getByRole("link", { name: "Runs", exact: true }).click();
    await page.getByText("Start a run").click();
    await page.getByLabel("Instruction").fill("echo something");
    await page.getByLabel("Run id (optional)").fill("bin-1");
    await page.getByRole("button", { name: "Start run" }).click();
    await page.getByRole("heading", { name: "Run bin-1" }).waitFor();
    await page.locator(".card .status-succeeded").waitFor();
    const steps = await page
      .locator("#run-timeline > li")
      .evaluateAll((els) => els.map((e) => e.querySelector(".step-label")?.textContent ?? ""));
    expect(steps).toEqual(["Turn 1", "↳ rec/echo", "Turn 2"]);
    // Not streamed, yet the reasoning summary of the turn is on the timeline.
    const turn1 = page.locator('[data-step="turn-1"]');
    await turn1.locator("details summary").click();
    expect(await turn1.locator(".reasoning").textContent()).toBe("The user wants an echo; the rec server has one.");
    expect(await page.locator('[data-step="turn-2"] .model-text').textContent()).toStartWith("BINARY DONE: ");
    expect(await page.locator("#run-answer").textContent()).toContain("from the binary");
    // The Questions page draws: nothing waits.
    await page.getByRole("link", { name: "Questions", exact: true }).click();
    await page.getByRole("heading", { name: "Questions", exact: true }).waitFor();
    expect(await page.locator("article.question").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  test("a non-operator sees neither the start form nor the operator's run", async () => {
    const { page, errors } = await open(ALICE);
    await page.getByRole("link", { name: "Runs", exact: true }).click();
    await page.getByRole("heading", { name: "Runs", exact: true }).waitFor();
    expect(await page.getByText("Start a run").count()).toBe(0);
    expect(await page.getByRole("link", { name: "bin-1" }).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);
});
