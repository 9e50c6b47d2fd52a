/**
 * The `agentd` bin of the published `@agentd/cli` (bin/agentd.js), run by Node as npm installs it: it finds
 * the binary in the platform package beside it and passes arguments, stdio, exit status and SIGTERM through;
 * without one it says so in one line; in this checkout it runs the sources with Bun; killed outright, it
 * takes the binary with it. (The real compiled
 * binary behind it is exercised by scripts/registry.e2e.test.ts.)
 */
import { afterEach, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const LAUNCHER = join(import.meta.dir, "..", "bin", "agentd.js");
const STAND_IN = join(import.meta.dir, "__fixtures__", "launcher", "stand-in-binary.sh");
const NODE = Bun.which("node");
const target = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

const dirs: string[] = [];
const procs: Bun.Subprocess[] = [];
/** Processes a test found (not started) that must not outlive it, killed by pid. */
const found: number[] = [];
afterEach(async () => {
  for (const pid of found.splice(0))
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  for (const p of procs.splice(0)) {
    p.kill("SIGKILL");
    await p.exited;
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** node_modules as npm lays it out: the launcher package and (optionally) this platform's package. */
function install(withBinary: boolean): string {
  const root = mkdtempSync(join(tmpdir(), "agentd-launcher-"));
  dirs.push(root);
  const cli = join(root, "node_modules", "@agentd", "cli");
  mkdirSync(join(cli, "bin"), { recursive: true });
  copyFileSync(LAUNCHER, join(cli, "bin", "agentd.js"));
  writeFileSync(join(cli, "package.json"), JSON.stringify({ name: "@agentd/cli", type: "module", bin: { agentd: "./bin/agentd.js" } }));
  if (withBinary) {
    const platform = join(root, "node_modules", "@agentd", `cli-${target}`);
    mkdirSync(join(platform, "bin"), { recursive: true });
    writeFileSync(join(platform, "package.json"), JSON.stringify({ name: `@agentd/cli-${target}` }));
    copyFileSync(STAND_IN, join(platform, "bin", "agentd"));
    chmodSync(join(platform, "bin", "agentd"), 0o755);
  }
  return join(cli, "bin", "agentd.js");
}

async function runNode(args: string[]) {
  const p = Bun.spawn([NODE!, ...args], { stdout: "pipe", stderr: "pipe" });
  procs.push(p);
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { stdout, stderr, code };
}

test.skipIf(!NODE || process.platform === "win32")(
  "passes arguments through and exits with the binary's status",
  async () => {
    const bin = install(true);
    const r = await runNode([bin, "exit", "3"]);
    expect(r.stdout).toBe("args: exit 3\n");
    expect(r.code).toBe(3);
  },
  30_000,
);

test.skipIf(!NODE || process.platform === "win32")(
  "a SIGTERM sent to the launcher reaches the binary",
  async () => {
    const bin = install(true);
    const p = Bun.spawn([NODE!, bin, "wait"], { stdout: "pipe", stderr: "pipe" });
    procs.push(p);
    const reader = p.stdout.getReader();
    let out = "";
    while (!out.includes("ready\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    p.kill("SIGTERM");
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    expect(out).toContain("got TERM");
    expect(await p.exited).toBe(7);
  },
  30_000,
);

test.skipIf(!NODE || process.platform !== "linux")(
  "kill -9 of the launcher ends the binary it started",
  async () => {
    const bin = install(true);
    const p = Bun.spawn([NODE!, bin, "wait"], { stdout: "pipe", stderr: "pipe" });
    procs.push(p);
    const reader = p.stdout.getReader();
    let out = "";
    while (!out.includes("ready\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    const binary = childrenOf(p.pid).find((c) => commandLine(c).includes(join("bin", "agentd")));
    expect(binary).toBeDefined();
    found.push(binary as number);
    p.kill("SIGKILL");
    // The binary's end is the event waited for; the test's own timeout bounds the wait (a loaded machine is slow).
    while (alive(binary as number)) await Bun.sleep(10);
    expect(alive(binary as number)).toBe(false);
  },
  30_000,
);

/** Live children of `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .map(Number)
    .filter((c) => Number.isInteger(c) && stat(c)?.ppid === pid && alive(c));
}

function stat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: state as string, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => (stat(pid)?.state ?? "Z") !== "Z";

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

test.skipIf(!NODE)(
  "without the platform package: one line naming it, exit 1",
  async () => {
    const bin = install(false);
    const r = await runNode([bin, "--version"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toStartWith(`agentd: no binary for ${target}: the optional dependency @agentd/cli-${target} is not installed`);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  },
  30_000,
);

test.skipIf(!NODE)(
  "in this checkout it runs the sources with Bun",
  async () => {
    const r = await runNode([LAUNCHER, "--version"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^agentd \d+\.\d+\.\d+ \(MCP /);
    expect(r.code).toBe(0);
  },
  30_000,
);

test("`bunx agentd` in this repository runs the CLI (the workspace links its bin)", async () => {
  const p = Bun.spawn([process.execPath, "x", "agentd", "--version"], {
    cwd: join(import.meta.dir, "..", "..", ".."),
    stdout: "pipe",
    stderr: "pipe",
  });
  procs.push(p);
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(stderr).toBe("");
  expect(stdout).toMatch(/^agentd \d+\.\d+\.\d+ \(MCP /);
  expect(code).toBe(0);
}, 30_000);
