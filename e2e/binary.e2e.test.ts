/** The compiled binary: `bun build --compile` yields one file that runs the whole demo offline. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { CLI_MAIN, CliWorkspace, events, REPO_ROOT } from "@agentd/test-support/cli-process";
import { COMPILE_FLAGS } from "@agentd/cli/compile-flags";

const dir = mkdtempSync(join(tmpdir(), "agentd-bin-"));
const binary = join(dir, "agentd");
let ws: CliWorkspace;
beforeAll(async () => {
  const build = Bun.spawn([process.execPath, "build", ...COMPILE_FLAGS, CLI_MAIN, "--outfile", binary], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`bun build --compile failed: ${err}`);
  ws = new CliWorkspace();
}, 120_000);
afterAll(() => {
  ws?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test("the binary runs the demo: bundled MCP server (itself, as a child) + scripted model", async () => {
  const run = await ws.run(["demo"], { binary });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("Order A-1042 is shipped");
  expect(run.stdout).toContain("119.51 EUR");
  expect(run.stderr).toContain("SCRIPTED model");
  const names = events(run).map((e) => e.event);
  expect(names.filter((n) => n === "tool.call.start").length).toBe(2);
  expect(names.at(-1)).toBe("run.end");
});

/** Live processes (not zombies) whose working directory is `dir`: what a run started there and left behind. */
function runningIn(dir: string): string[] {
  const left: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`) !== dir) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat[stat.lastIndexOf(")") + 2] === "Z") continue;
      left.push(`${name} ${readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 80)}`);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return left;
}

test.skipIf(process.platform !== "linux")(
  "once the demo has exited, nothing it started runs: neither its MCP server nor the death watch's shell",
  async () => {
    const cwd = mkdtempSync(join(tmpdir(), "agentd-demo-leftovers-"));
    try {
      for (let i = 0; i < 3; i++) {
        const proc = Bun.spawn([binary, "demo"], {
          cwd,
          env: { PATH: process.env.PATH, HOME: process.env.HOME, XDG_STATE_HOME: process.env.XDG_STATE_HOME },
          stdin: "ignore",
          stdout: "pipe",
          stderr: "ignore",
        });
        const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
        expect(code).toBe(0);
        expect(stdout).toContain("119.51 EUR");
        // Checked the moment the exit is seen, without polling: both are gone before the demo's exit status exists.
        expect(runningIn(cwd)).toEqual([]);
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  },
);

test("the binary prints its version", async () => {
  const run = await ws.run(["--version"], { binary });
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^agentd \d+\.\d+\.\d+ \(MCP 2026-07-28, 2025-11-25/);
});

test("the binary runs none of the working directory's bunfig.toml preload and reads none of its .env", async () => {
  // A compiled Bun program autoloads both by default: agentd run inside a cloned repository would run its code.
  const marker = join(ws.dir, "preload-ran");
  writeFileSync(join(ws.dir, "preload.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
  writeFileSync(join(ws.dir, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
  writeFileSync(join(ws.dir, ".env"), "RUN_ID=from-the-dotenv-file\n");
  try {
    const run = await ws.run(["demo", "--json"], { binary });
    expect(run.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(JSON.parse(run.stdout).runId).not.toBe("from-the-dotenv-file");
  } finally {
    for (const f of ["preload.ts", "bunfig.toml", ".env", "preload-ran"]) rmSync(join(ws.dir, f), { force: true });
  }
});

test("from source, demo --json carries usage and a run id", async () => {
  const run = await ws.run(["demo", "--json"], { env: { RUN_ID: "demo-run-1" } });
  expect(run.code).toBe(0);
  const out = JSON.parse(run.stdout);
  expect(out.runId).toBe("demo-run-1");
  expect(out.turns).toBe(3);
  expect(out.toolCalls).toBe(2);
  expect(out.text).toContain("119.51 EUR");
});

test("the demo stays offline whatever agentd.json the working directory holds", async () => {
  ws.writeConfig({ model: { intelligence: "http://127.0.0.1:9/v1", name: "unreachable" }, limits: { maxTurns: 1 } });
  const run = await ws.run(["demo"], { env: { AGENT_CONFIG: "/nonexistent/agentd.json" } });
  expect(run.code).toBe(0);
  expect(run.stderr).toContain("SCRIPTED model");
  expect(run.stdout).toContain("119.51 EUR");
});

test("the binary serves the console with its embedded page and script (serve --http --console)", async () => {
  const proc = Bun.spawn([binary, "serve", "--http", "127.0.0.1:0", "--console", "--grace", "1s"], {
    cwd: ws.dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, XDG_STATE_HOME: process.env.XDG_STATE_HOME, AGENT_LOG_FORMAT: "json" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  try {
    let seen = "";
    const decoder = new TextDecoder();
    let listening: Record<string, any> | undefined;
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) {
      seen += decoder.decode(chunk, { stream: true });
      listening = seen
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l))
        .find((e) => e.event === "serve.listening");
      if (listening) break;
    }
    if (!listening) throw new Error(`the binary did not listen:\n${seen}`);
    expect(listening.console).toBe(`${new URL(listening.url).origin}/console`);
    const page = await fetch(listening.console);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="/console/app.js"></script>');
    // The script served is the one generated into the SDK's sources (scripts/build-console.ts).
    const script = await (await fetch(`${listening.console}/app.js`)).text();
    expect(script.length).toBeGreaterThan(1000);
    expect(readFileSync(join(REPO_ROOT, "packages/sdk/src/agent/console/assets.generated.ts"), "utf8")).toContain(
      `CONSOLE_APP_JS: string = ${JSON.stringify(script)};`,
    );
  } finally {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}, 60_000);
