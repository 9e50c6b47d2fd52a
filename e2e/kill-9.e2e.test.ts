/**
 * `kill -9` of any agentd process — `run`, `serve`, a subagent — takes every process it started, and their
 * descendants, with it within 2 s (about one: the servers get a second after SIGTERM; the bound waited for
 * here is generous, for a loaded machine). The
 * MCP servers run in their own process groups, so nothing but agentd's watchdog (`_death-watch.ts`) can
 * reach them. Each test tags its processes through the environment, so orphans re-parented to init are
 * found too. The same holds for `kill -9` of the `agentd` launcher (`bin/agentd.js`, what
 * `node_modules/.bin/agentd`, `npx agentd` and `bunx agentd` run): agentd and all it started go with it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpClient } from "@agentd/sdk/mcp";
import { StreamableHttpClientTransport } from "@agentd/sdk/transport";
import { startFakeGateway, type FakeGateway, type RecordedRequest } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace, RECORDING_SERVER } from "@agentd/test-support/cli-process";
import { startAgentd, stopAll } from "./__fixtures__/agentd-process.ts";
import { commandLine, descendantsOf } from "./__fixtures__/proc-tree.ts";
import { modelEnv, toolLike } from "./__fixtures__/scripts.ts";
import { isAlive, killTagged, newTag, TAG_ENV, tagged } from "./__fixtures__/subagent/tree.ts";

const GONE_WITHIN_MS = 10_000;
let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let client: McpClient | undefined;
let tag = newTag();

afterEach(async () => {
  await client?.close().catch(() => {});
  client = undefined;
  await stopAll();
  killTagged(tag);
  await gateway?.close();
  ws?.cleanup();
  ws = gateway = undefined;
  tag = newTag();
});

const sh = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Two servers, both tagged: `wrapped` behind a shell that stays (`sh -c 'sleep & server; true'`), and
 * `spawner`, whose start leaves a grandchild that outlives its parent subshell (re-parented to init, still
 * in the server's process group).
 */
function servers(w: CliWorkspace) {
  const rec = `${sh(process.execPath)} ${sh(RECORDING_SERVER)} ${sh(w.serverLog)}`;
  const env = { [TAG_ENV]: tag };
  return {
    wrapped: { command: "/bin/sh", args: ["-c", `sleep 300 & ${rec}; true`], env },
    spawner: { command: "/bin/sh", args: ["-c", `(sleep 301 &); exec ${rec}`], env },
  };
}

/** Wait (polling /proc, bounded) until none of `pids` is alive; returns the survivors and how long it took. */
async function goneAfter(pids: number[]): Promise<{ left: string[]; ms: number }> {
  const start = performance.now();
  while (pids.some(isAlive) && performance.now() - start < GONE_WITHIN_MS) await new Promise((r) => setTimeout(r, 10));
  return { left: pids.filter(isAlive).map((p) => `${p} ${commandLine(p)}`), ms: performance.now() - start };
}

/** A model that calls `slow` (2 minutes) on the first server offering it. */
async function slowGateway(): Promise<FakeGateway> {
  gateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [(req: RecordedRequest) => ({ toolCalls: [{ name: toolLike(req, "slow"), arguments: { ms: 120_000 } }] })],
  });
  return gateway;
}

/**
 * What agentd `root` started (by parent links: the watchdogs, which carry no environment of ours) and
 * every tagged process (orphans re-parented to init included), after checking it is what the test means.
 */
function tree(root: number, expectAtLeast: number): number[] {
  const pids = [...new Set([...tagged(tag), ...descendantsOf(root)])];
  const lines = pids.map(commandLine);
  expect(lines.filter((l) => l.includes("sleep 300")).length).toBeGreaterThanOrEqual(1);
  expect(lines.filter((l) => l.includes("sleep 301")).length).toBeGreaterThanOrEqual(1);
  expect(lines.filter((l) => l.includes("recording-server")).length).toBeGreaterThanOrEqual(2);
  expect(pids.length).toBeGreaterThanOrEqual(expectAtLeast);
  return pids;
}

describe("kill -9 of agentd leaves nothing running", () => {
  test("agentd run, mid tool call: its MCP servers, their wrappers and grandchildren, and its watchdog go", async () => {
    ws = new CliWorkspace();
    const g = await slowGateway();
    const config = ws.writeConfig({ mcpServers: servers(ws) });
    const agentd = startAgentd(["run", "--config", config, "be slow"], { cwd: ws.dir, env: { ...modelEnv(g), [TAG_ENV]: tag } });
    await agentd.waitFor("tool.call.start");
    // agentd, the wrapper shell and its sleep, two servers, the orphaned sleep (and agentd's watchdog).
    const pids = tree(agentd.pid, 6);
    process.kill(agentd.pid, "SIGKILL");
    const { left, ms } = await goneAfter(pids);
    expect(left).toEqual([]);
    console.error(`kill -9 agentd run: ${pids.length} processes gone in ${ms.toFixed(0)} ms`);
  }, 60_000);

  test("agentd serve --http: the same", async () => {
    ws = new CliWorkspace();
    const g = await slowGateway();
    const config = ws.writeConfig({ mcpServers: servers(ws) });
    const agentd = startAgentd(["serve", "--http", "127.0.0.1:0", "--config", config], {
      cwd: ws.dir,
      env: { ...modelEnv(g), [TAG_ENV]: tag },
    });
    const [listening] = await agentd.waitFor("serve.listening");
    // Servers start with the first run: ask for one (it stays in the slow tool until the kill).
    client = new McpClient({ name: "kill-9-test", version: "1.0.0" });
    await client.connect(new StreamableHttpClientTransport(listening?.url));
    void client.callTool("agent.run", { instruction: "be slow" }).catch(() => {});
    await agentd.waitFor("tool.call.start");
    const pids = tree(agentd.pid, 6);
    process.kill(agentd.pid, "SIGKILL");
    const { left, ms } = await goneAfter(pids);
    expect(left).toEqual([]);
    console.error(`kill -9 agentd serve: ${pids.length} processes gone in ${ms.toFixed(0)} ms`);
  }, 60_000);

  /** A root whose model starts one subagent; the subagent's model calls `slow` on its own servers. */
  async function rootWithSubagent() {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [
        (req: RecordedRequest) => {
          const user = req.messages.find((m) => m.role === "user")?.text ?? "";
          if (user.startsWith("CHILD:")) return { toolCalls: [{ name: toolLike(req, "slow"), arguments: { ms: 120_000 } }] };
          if (req.lastToolResult !== undefined) return { text: "root done" };
          return { toolCalls: [{ name: toolLike(req, "subagent_spawn"), arguments: { instruction: "CHILD: be slow" } }] };
        },
      ],
    });
    const config = ws.writeConfig({ mcpServers: servers(ws), subagents: { maxRestarts: 0 } });
    const agentd = startAgentd(["run", "--config", config, "delegate"], { cwd: ws.dir, env: { ...modelEnv(gateway), [TAG_ENV]: tag } });
    await agentd.waitFor("tool.call.start", 1, (e) => e.subagent !== undefined && String(e.tool ?? e.name ?? "").includes("slow"));
    const child = tagged(tag).find((p) => commandLine(p).includes("__subagent"));
    expect(child).toBeDefined();
    return { agentd, child: child as number };
  }

  test("a subagent: killed, its own servers, wrappers, grandchildren and watchdog go; its parent reports the crash", async () => {
    const { agentd, child } = await rootWithSubagent();
    const before = tree(child, 6);
    // The child's own tree: what it started, by parent links, and what shares a process group with that
    // (the orphaned grandchild), found before the kill re-parents them.
    const started = before.filter((p) => p === child || descends(p, child));
    const groups = new Set(started.map((p) => stat(p)?.pgrp));
    const own = before.filter((p) => started.includes(p) || groups.has(stat(p)?.pgrp));
    expect(own.length).toBeGreaterThanOrEqual(6);
    process.kill(child, "SIGKILL");
    const { left, ms } = await goneAfter(own);
    expect(left).toEqual([]);
    // The parent was not taken down: it saw the crash (no restart allowed) and finished its own run.
    expect(await agentd.exited).toBe(0);
    expect(agentd.stdout).toBe("root done\n");
    console.error(`kill -9 subagent: ${own.length} processes gone in ${ms.toFixed(0)} ms`);
  }, 60_000);

  test("the root of a subagent tree: everything in the tree goes, the subagent's servers included", async () => {
    const { agentd } = await rootWithSubagent();
    // Root + its 5 server processes; the subagent + its 5 (and a watchdog each).
    const pids = tree(agentd.pid, 12);
    process.kill(agentd.pid, "SIGKILL");
    const { left, ms } = await goneAfter(pids);
    expect(left).toEqual([]);
    console.error(`kill -9 root with a subagent: ${pids.length} processes gone in ${ms.toFixed(0)} ms`);
  }, 60_000);
});

const NODE = Bun.which("node");
const REPO_BIN = join(import.meta.dir, "..", "node_modules", ".bin", "agentd");

/**
 * `node_modules` as npm lays out the published package in `w`: the launcher, and this platform's package
 * whose `bin/agentd` stands in for the compiled binary by exec'ing agentd from the sources (same pid, so
 * the launcher's child is agentd itself). Returns `node_modules/.bin/agentd`.
 */
function installedPackage(w: CliWorkspace): string {
  const target = `${process.platform}-${process.arch}`;
  const modules = join(w.dir, "node_modules");
  const cli = join(modules, "@agentd", "cli");
  mkdirSync(join(cli, "bin"), { recursive: true });
  copyFileSync(join(import.meta.dir, "..", "packages", "cli", "bin", "agentd.js"), join(cli, "bin", "agentd.js"));
  chmodSync(join(cli, "bin", "agentd.js"), 0o755);
  writeFileSync(join(cli, "package.json"), JSON.stringify({ name: "@agentd/cli", type: "module", bin: { agentd: "./bin/agentd.js" } }));
  const platform = join(modules, "@agentd", `cli-${target}`);
  mkdirSync(join(platform, "bin"), { recursive: true });
  writeFileSync(join(platform, "package.json"), JSON.stringify({ name: `@agentd/cli-${target}` }));
  writeFileSync(join(platform, "bin", "agentd"), `#!/bin/sh\nexec ${sh(process.execPath)} ${sh(CLI_MAIN)} "$@"\n`);
  chmodSync(join(platform, "bin", "agentd"), 0o755);
  mkdirSync(join(modules, ".bin"));
  symlinkSync("../@agentd/cli/bin/agentd.js", join(modules, ".bin", "agentd"));
  return join(modules, ".bin", "agentd");
}

describe.skipIf(!NODE || process.platform !== "linux")("kill -9 of the agentd launcher leaves nothing running", () => {
  /** Start `agentd run` mid tool call through `launcher`, kill -9 the launcher, and wait for the tree to go. */
  async function killLauncher(launcher: (w: CliWorkspace) => string, what: string) {
    ws = new CliWorkspace();
    const g = await slowGateway();
    const config = ws.writeConfig({ mcpServers: servers(ws) });
    const bin = launcher(ws);
    const agentd = startAgentd(["run", "--config", config, "be slow"], {
      cwd: ws.dir,
      env: { ...modelEnv(g), [TAG_ENV]: tag },
      command: [bin],
    });
    await agentd.waitFor("tool.call.start");
    // The launcher's child is agentd (running main.ts), not a wrapper of it. (Remembered, so that cleanup
    // reaches it even when it outlives the launcher.)
    const child = agentd.descendants().find((p) => commandLine(p).includes(CLI_MAIN));
    expect(child).toBeDefined();
    // The launcher, agentd, the wrapper shell and its sleep, two servers, the orphaned sleep (and watchdogs).
    const pids = [...new Set([agentd.pid, ...tree(agentd.pid, 7)])];
    expect(pids).toContain(child as number);
    process.kill(agentd.pid, "SIGKILL");
    const { left, ms } = await goneAfter(pids);
    expect(left).toEqual([]);
    console.error(`kill -9 ${what}: ${pids.length} processes gone in ${ms.toFixed(0)} ms`);
  }

  test("node_modules/.bin/agentd of this checkout (the launcher running the sources with Bun)", async () => {
    await killLauncher(() => REPO_BIN, "the launcher (sources)");
  }, 60_000);

  test("node_modules/.bin/agentd of the installed package (the launcher running the platform binary)", async () => {
    await killLauncher(installedPackage, "the launcher (installed package)");
  }, 60_000);
});

/** Whether `pid` descends from `ancestor` (Linux /proc; false once either is gone). */
function descends(pid: number, ancestor: number): boolean {
  for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
    const ppid = stat(p)?.ppid;
    if (ppid === ancestor) return true;
    if (ppid === undefined) return false;
    p = ppid;
  }
  return false;
}

/** Parent and process group of `pid` (undefined once gone). */
function stat(pid: number): { ppid: number; pgrp: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [, ppid, pgrp] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(ppid), pgrp: Number(pgrp) };
  } catch {
    return undefined;
  }
}
