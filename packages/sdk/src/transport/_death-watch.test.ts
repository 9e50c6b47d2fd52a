/**
 * The watchdog that stops our children when we are killed outright: real processes, real signals. A
 * parent (fixture) starts stdio servers behind `sh -c` wrappers whose children outlive their own parents;
 * `kill -9` of the parent must leave none of them running, nor the watchdog.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SpawnApi } from "./_server-process.ts";
import { SPAWN_API_ENV, SPAWN_APIS } from "./__fixtures__/spawn-api.ts";

const PARENT = join(import.meta.dir, "__fixtures__", "killable-parent.ts");
const GONE_WITHIN_MS = 10_000;
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0))
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone: what the tests want.
    }
});

/** Live processes (not zombies) whose command line contains `marker`. */
function withMarker(marker: string): number[] {
  const out: number[] = [];
  for (const name of require("node:fs").readdirSync("/proc") as string[]) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker) && isAlive(Number(name))) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false;
  }
}

/** The processes carrying `marker` (not the parent), once there are `count` of them (the shells fork them). */
async function appear(marker: string, parentPid: number, count: number): Promise<number[]> {
  const deadline = performance.now() + GONE_WITHIN_MS;
  for (;;) {
    const pids = withMarker(marker).filter((p) => p !== parentPid);
    if (pids.length >= count || performance.now() > deadline) {
      started.push(...pids);
      return pids;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A process for a failure message: pid, state, parent, group, command line. */
function show(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return `${pid} ${state} ppid=${ppid} pgrp=${pgrp} ${readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 60)}`;
  } catch {
    return `${pid} (gone)`;
  }
}

async function goneAfter(pids: number[]): Promise<number[]> {
  const start = performance.now();
  while (pids.some(isAlive) && performance.now() - start < GONE_WITHIN_MS) await new Promise((r) => setTimeout(r, 10));
  return pids.filter(isAlive);
}

/** Start the fixture parent (its servers spawned with `spawnApi`); resolves with it and its watchdog's pid once it printed `ready`. */
async function parent(spawnApi: SpawnApi, args: string[]): Promise<{ child: ChildProcess; watchdog: number }> {
  const env = { ...process.env, [SPAWN_API_ENV]: spawnApi };
  const child = spawn(process.execPath, [PARENT, ...args], { stdio: ["ignore", "pipe", "inherit"], env });
  started.push(child.pid!);
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      if (out.includes("\n")) resolve(out.trim());
    });
    child.once("exit", (code) => reject(new Error(`parent exited (${code}) before ready`)));
  });
  const watchdog = Number(line.split(" ")[1]);
  started.push(watchdog);
  return { child, watchdog };
}

for (const spawnApi of SPAWN_APIS) {
  describe.skipIf(process.platform !== "linux")(`kill -9 of the parent [servers spawned with ${spawnApi}]`, () => {
    test("every server group goes with it — wrapper, server, grandchildren, an orphan, one deaf to SIGTERM — and so does the watchdog", async () => {
      const marker = String(100_000 + Math.floor(Math.random() * 800_000)); // sleep's argument: seconds
      const { child, watchdog } = await parent(spawnApi, [
        // A wrapper that stays, with two children.
        `sleep ${marker}1 & sleep ${marker}2 & wait`,
        // A grandchild re-parented to init at once, still in the server's group.
        `(sleep ${marker}3 &); exec sleep ${marker}4`,
        // Ignores SIGTERM (inherited across exec): only the SIGKILL after the grace stops it.
        `trap '' TERM; exec sleep ${marker}5`,
      ]);
      // The wrapper shell, its two children, the server, the orphan, the deaf one.
      const pids = await appear(marker, child.pid!, 6);
      expect(pids.length).toBe(6);
      expect(isAlive(watchdog)).toBe(true);
      process.kill(child.pid!, "SIGKILL");
      expect((await goneAfter([...pids, watchdog])).map(show)).toEqual([]);
    }, 30_000);

    test("a released target is not killed (a reused pid is never hit); the groups still are", async () => {
      const bystander = spawn("sleep", ["300"], { stdio: "ignore" });
      started.push(bystander.pid!);
      const marker = String(100_000 + Math.floor(Math.random() * 800_000)); // sleep's argument: seconds
      const { child, watchdog } = await parent(spawnApi, ["--released", String(bystander.pid), `exec sleep ${marker}`]);
      const server = await appear(marker, child.pid!, 1);
      expect(server).toHaveLength(1);
      process.kill(child.pid!, "SIGKILL");
      expect((await goneAfter([...server, watchdog])).map(show)).toEqual([]);
      expect(isAlive(bystander.pid!)).toBe(true);
    }, 30_000);

    test("once its last server is gone, the watchdog ends while the parent still runs (its exit waits for nothing)", async () => {
      const marker = String(100_000 + Math.floor(Math.random() * 800_000)); // sleep's argument: seconds
      const { child, watchdog } = await parent(spawnApi, ["--close", `exec sleep ${marker}`]);
      await new Promise<void>((resolve) => {
        let out = "";
        child.stdout!.on("data", (b: Buffer) => {
          out += b.toString();
          if (out.includes("closed\n")) resolve();
        });
      });
      expect((await goneAfter([watchdog])).map(show)).toEqual([]);
      expect(isAlive(child.pid!)).toBe(true);
    }, 30_000);

    test("a parent whose work is done ends by itself (the watchdog holds nothing open), and takes the watchdog along", async () => {
      const marker = String(100_000 + Math.floor(Math.random() * 800_000)); // sleep's argument: seconds
      const { child, watchdog } = await parent(spawnApi, ["--exit", `exec sleep ${marker}`]);
      const code = await new Promise((r) => (child.exitCode !== null ? r(child.exitCode) : child.once("exit", r)));
      expect(code).toBe(0);
      // Gone the moment the parent's exit is visible: no poll needed.
      expect([watchdog, ...withMarker(marker).filter((p) => p !== child.pid)].filter(isAlive).map(show)).toEqual([]);
    }, 30_000);
  });
}
