/**
 * Which API spawns a stdio server, and what both give: under Bun the transport's default is `Bun.spawn`
 * (native pipes), `spawnApi: "node"` is `node:child_process`; either way the child leads its own session and
 * process group, and its pipes behave the same. (The transport's behaviour on both is covered by
 * `stdio-child.test.ts`, `_death-watch.test.ts` and `stdio-backpressure.test.ts`, which run every case on
 * each; `stdio-child-node.test.ts` runs it under Node itself.)
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openSink } from "./_byte-sinks.ts";
import { DEFAULT_SPAWN_API, spawnServerProcess, type ServerProcess, type SpawnApi } from "./_server-process.ts";
import { StdioChildTransport } from "./stdio-child.ts";
import { SPAWN_APIS } from "./__fixtures__/spawn-api.ts";

const CHILD_MODES = join(import.meta.dir, "__fixtures__", "child-modes.ts");
const TEST_TIMEOUT = 30_000;

const transports: StdioChildTransport[] = [];
const processes: ServerProcess[] = [];
afterEach(async () => {
  for (const t of transports.splice(0)) await t.close();
  for (const p of processes.splice(0)) {
    try {
      process.kill(-p.pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}, TEST_TIMEOUT);

/** Record the call stacks of every `Bun.spawn` made while `fn` runs (the real `Bun.spawn` still runs). */
async function spawnStacks(fn: () => Promise<void>): Promise<string[]> {
  const real = Bun.spawn;
  const stacks: string[] = [];
  (Bun as { spawn: unknown }).spawn = (...args: unknown[]) => {
    stacks.push(new Error().stack ?? "");
    return (real as (...a: unknown[]) => unknown)(...args);
  };
  try {
    await fn();
  } finally {
    (Bun as { spawn: unknown }).spawn = real;
  }
  return stacks;
}

/** Start a transport to the `env` fixture (it answers one message) and wait for that message. */
async function exchange(spawnApi?: SpawnApi): Promise<unknown> {
  const t = new StdioChildTransport({
    name: "env",
    command: process.execPath,
    args: [CHILD_MODES, "env"],
    spawnApi,
  });
  transports.push(t);
  const got = new Promise<unknown>((resolve) => (t.onmessage = resolve));
  await t.start();
  return got;
}

/** `[pgrp, session]` of a process (Linux). */
function groupOf(pid: number): [number, number] {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  const [, , pgrp, session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return [Number(pgrp), Number(session)];
}

describe("the spawn API a stdio transport uses", () => {
  test(
    "under Bun the default is Bun.spawn, called from the Bun path (not through node:child_process)",
    async () => {
      expect(DEFAULT_SPAWN_API).toBe("bun");
      let answer: unknown;
      const stacks = await spawnStacks(async () => {
        answer = await exchange();
      });
      expect(answer).toMatchObject({ method: "env" });
      // The death-watch shell may be spawned too (once a process): look at the server's spawn.
      expect(stacks.filter((s) => s.includes("_server-process-bun.ts"))).toHaveLength(1);
      expect(stacks.some((s) => s.includes("_server-process-node.ts"))).toBe(false);
    },
    TEST_TIMEOUT,
  );

  test(
    'spawnApi: "node" goes through node:child_process (Bun implements it on top of Bun.spawn)',
    async () => {
      let answer: unknown;
      const stacks = await spawnStacks(async () => {
        answer = await exchange("node");
      });
      expect(answer).toMatchObject({ method: "env" });
      expect(stacks.some((s) => s.includes("_server-process-node.ts"))).toBe(true);
      expect(stacks.some((s) => s.includes("_server-process-bun.ts"))).toBe(false);
    },
    TEST_TIMEOUT,
  );

  for (const api of SPAWN_APIS) {
    test.skipIf(process.platform !== "linux")(
      `${api}: the child leads its own session and process group; exit and close are reported in order`,
      async () => {
        const events: string[] = [];
        let closed!: () => void;
        const whenClosed = new Promise<void>((r) => (closed = r));
        const p = await spawnServerProcess(
          { command: "/bin/sh", args: ["-c", "echo out; echo err >&2; read line; exit 7"], env: { PATH: "/usr/bin:/bin" } },
          {
            stderr: (chunk) => events.push(`stderr ${new TextDecoder().decode(chunk).trim()}`),
            exit: (code, signal) => events.push(`exit ${code} ${signal}`),
            close: () => {
              events.push("close");
              closed();
            },
            error: (e) => events.push(`error ${e.message}`),
          },
          api,
        );
        processes.push(p);
        expect(groupOf(p.pid)).toEqual([p.pid, p.pid]);
        expect(groupOf(process.pid)[0]).not.toBe(p.pid);
        p.drainOutput(); // 'close' needs stdout read to its end
        openSink(p.input, { error: () => {}, flushed: () => {} }).write("go\n");
        await whenClosed;
        // Output may be read before or after the exit is seen; 'close' comes after both.
        expect(events.toSorted()).toEqual(["close", "exit 7 null", "stderr err"]);
        expect(events.at(-1)).toBe("close");
        expect([p.exitCode, p.signalCode]).toEqual([7, null]);
      },
      TEST_TIMEOUT,
    );
  }

  for (const api of SPAWN_APIS) {
    test(`${api}: a command that cannot be started rejects with its code (ENOENT)`, async () => {
      const error = await spawnServerProcess(
        { command: "agentd-no-such-command-xyz", args: [], env: { PATH: "/usr/bin:/bin" } },
        { stderr: () => {}, exit: () => {}, close: () => {}, error: () => {} },
        api,
      ).catch((e: NodeJS.ErrnoException) => e);
      expect((error as NodeJS.ErrnoException).code).toBe("ENOENT");
    });
  }
});
