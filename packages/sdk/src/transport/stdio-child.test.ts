import { afterEach, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { createLogger, type LogRecord } from "../log.ts";
import { AgentdError } from "../wire/errors.ts";
import { StdioChildTransport, type StdioChildOptions } from "./stdio-child.ts";
import { StreamTransport } from "./stdio-streams.ts";
import type { SpawnApi } from "./_server-process.ts";
import { SPAWN_API_ENV, SPAWN_APIS } from "./__fixtures__/spawn-api.ts";
import { runTransportCases } from "./__fixtures__/transport.case.ts";

const FIXTURES = join(import.meta.dir, "__fixtures__");
const BUN = process.execPath;
/** Spawning bun on a loaded 2-core box can take a while; bun's default per-test timeout is 5 s. */
const PROCESS_TEST_TIMEOUT = 30_000;
const note = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0" as const, method, params });

/** True once `pid` no longer names a live process (gone, or a zombie nobody has reaped yet). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? false;
  } catch {
    return true;
  }
}

/** A logger whose records can be awaited. */
function watchedLogger() {
  const records: LogRecord[] = [];
  const waiters: Array<() => void> = [];
  const logger = createLogger(
    (r) => {
      records.push(r);
      for (const w of waiters.splice(0)) w();
    },
    { level: "debug" },
  );
  const until = (pred: (r: LogRecord[]) => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (pred(records) ? resolve() : waiters.push(check));
      check();
    });
  const stderrLines = () => records.filter((r) => r.event === "mcp.stderr").map((r) => r.line);
  return { logger, records, until, stderrLines };
}

/** Transports started by a test; closed (and their pids checked dead) afterwards, even on failure. */
const started: StdioChildTransport[] = [];
const extraPids: number[] = [];
/** Process groups a test's processes made (a wrapper's); SIGKILLed afterwards, whatever is left of them. */
const extraGroups: number[] = [];
afterEach(async () => {
  for (const t of started.splice(0)) await t.close();
  for (const pid of extraPids.splice(0)) if (!isGone(pid)) process.kill(pid, "SIGKILL");
  for (const pgid of extraGroups.splice(0)) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // Nothing left: the expected case.
    }
  }
}, PROCESS_TEST_TIMEOUT);
/** Every case runs on both ways of spawning: Bun's own API (the default under Bun) and node:child_process. */
for (const spawnApi of SPAWN_APIS) suites(spawnApi);

function suites(spawnApi: SpawnApi): void {
  const make = (options: StdioChildOptions) => new StdioChildTransport({ spawnApi, ...options });
  /** The fixture parents spawn their servers the same way (see `__fixtures__/spawn-api.ts`). */
  const fixtureEnv = { ...process.env, [SPAWN_API_ENV]: spawnApi };

  function child(mode: string, options: Partial<StdioChildOptions> = {}) {
    const t = make({
      name: mode,
      command: BUN,
      args: [join(FIXTURES, "child-modes.ts"), mode],
      closeGraceMs: 300,
      termGraceMs: 300,
      ...options,
    });
    started.push(t);
    return t;
  }

  function closedOnce(t: StdioChildTransport) {
    let count = 0;
    const closed = new Promise<void>((resolve) => {
      t.onclose = () => {
        count++;
        resolve();
      };
    });
    return { closed, count: () => count };
  }

  runTransportCases(`StdioChildTransport ⇄ relay child (StdioServerTransport) [${spawnApi}]`, async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const connected = new Promise<Socket>((resolve) => server.once("connection", resolve));
    const a = make({
      name: "relay",
      command: BUN,
      args: [join(FIXTURES, "relay.ts"), String(port)],
    });
    const stopServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
    try {
      await a.start();
      const exitedEarly = new Promise<never>((_, reject) => {
        a.onclose = () => reject(new Error("relay child exited before connecting"));
      });
      const socket = await Promise.race([connected, exitedEarly]);
      const b = new StreamTransport(socket, socket);
      await b.start();
      return {
        a,
        b,
        cleanup: async () => {
          await a.close();
          await b.close();
          await stopServer();
        },
      };
    } catch (e) {
      await a.close();
      await stopServer();
      throw e;
    }
  });

  describe(`StdioChildTransport process hygiene [${spawnApi}]`, () => {
    test(
      "a child that ignores SIGTERM is SIGKILLed after the grace; close resolves once it is gone",
      async () => {
        const log = watchedLogger();
        const t = child("ignore-term", { logger: log.logger });
        const c = closedOnce(t);
        await t.start();
        const pid = t.pid!;
        expect(pid).toBeGreaterThan(0);
        await log.until(() => log.stderrLines().includes("ready"));
        await t.close();
        expect(t.exitStatus).toEqual({ code: null, signal: "SIGKILL" });
        expect(c.count()).toBe(1);
        expect(isGone(pid)).toBe(true);
        expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "a well-behaved child exits when its stdin closes, without a signal",
      async () => {
        // The grace outlasts a start-up on a loaded machine: only stdin's end stops it.
        const t = child("stderr", { closeGraceMs: 20_000 });
        const c = closedOnce(t);
        await t.start();
        const pid = t.pid!;
        await t.close();
        expect(t.exitStatus).toEqual({ code: 0, signal: null });
        expect(c.count()).toBe(1);
        expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "a child that exits by itself: its last message arrives, onerror names the exit, onclose, sends reject",
      async () => {
        const t = child("exit-after-hello");
        const messages: unknown[] = [];
        const errors: Error[] = [];
        t.onmessage = (m) => messages.push(m);
        t.onerror = (e) => errors.push(e);
        const c = closedOnce(t);
        await t.start();
        await c.closed;
        expect(messages).toEqual([note("hello")]);
        expect(errors.map((e) => e.message)).toContain("MCP server 'exit-after-hello' exited with code 3");
        expect(t.exitStatus).toEqual({ code: 3, signal: null });
        const rejected = await t.send(note("late")).catch((e) => e);
        expect(AgentdError.isInstance(rejected) && rejected.code).toBe("E_CONNECTION_CLOSED");
        await t.close();
        expect(c.count()).toBe(1);
        expect(isGone(t.pid!)).toBe(true);
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "a send waiting for the pipe to drain rejects when the child exits",
      async () => {
        const log = watchedLogger();
        const t = child("no-read", { logger: log.logger });
        const c = closedOnce(t);
        await t.start();
        await log.until(() => log.stderrLines().includes("ready"));
        let settled = false;
        // 3 MiB into a 64 KiB pipe the child never reads: this send cannot complete.
        const pending = t.send(note("big", { data: "z".repeat(3 * 1024 * 1024) })).finally(() => (settled = true));
        pending.catch(() => {});
        await new Promise((r) => setImmediate(r));
        expect(settled).toBe(false);
        process.kill(t.pid!, "SIGUSR1");
        const rejected = await pending.catch((e) => e);
        expect(AgentdError.isInstance(rejected) && rejected.code).toBe("E_CONNECTION_CLOSED");
        await c.closed;
        expect(t.exitStatus).toEqual({ code: 5, signal: null });
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "stderr reaches the logger line by line: CRLF stripped, partial lines joined, long lines cut",
      async () => {
        const log = watchedLogger();
        const t = child("stderr", { logger: log.logger, maxStderrLineBytes: 100, closeGraceMs: 20_000 });
        await t.start();
        await t.close();
        expect(log.stderrLines()).toEqual(["line one", "line two", "partial-continued", "x".repeat(100), "no newline at end"]);
        const records = log.records.filter((r) => r.event === "mcp.stderr");
        expect(records.every((r) => r.server === "stderr" && r.level === "info")).toBe(true);
        expect(records[3]?.truncated).toBe(true);
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "an unknown command is one clear error; so is a missing working directory",
      async () => {
        const ghost = make({ name: "ghost", command: "agentd-no-such-command-xyz" });
        const e1 = await ghost.start().catch((e) => e);
        expect(AgentdError.isInstance(e1) && e1.code).toBe("E_TRANSPORT");
        expect(e1.message).toBe("could not start MCP server 'ghost': command 'agentd-no-such-command-xyz' not found");
        await ghost.close();
        const lost = make({ name: "lost", command: BUN, cwd: "/nonexistent/agentd-test-dir" });
        const e2 = await lost.start().catch((e) => e);
        expect(e2.message).toBe("could not start MCP server 'lost': working directory '/nonexistent/agentd-test-dir' does not exist");
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "the child sees the safe default environment plus its configured env, never our other variables",
      async () => {
        process.env.AGENTD_TEST_PARENT_SECRET = "s3cret";
        try {
          const t = child("env", { env: { FROM_OPTIONS: "yes" } });
          const got = new Promise<unknown>((resolve) => (t.onmessage = resolve));
          await t.start();
          expect(await got).toEqual(note("env", { configured: "yes", leaked: null, hasPath: true }));
        } finally {
          delete process.env.AGENTD_TEST_PARENT_SECRET;
        }
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "a grandchild holding the pipes open does not stall onclose",
      async () => {
        const t = child("grandchild", { closeGraceMs: 200 });
        const got = new Promise<{ params: { pid: number } }>((resolve) => (t.onmessage = (m) => resolve(m as never)));
        const c = closedOnce(t);
        await t.start();
        extraPids.push((await got).params.pid);
        await c.closed;
        expect(t.exitStatus).toEqual({ code: 0, signal: null });
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "children still running when our process exits are SIGKILLed (no orphans)",
      async () => {
        const parent = spawn(BUN, [join(FIXTURES, "orphan-parent.ts")], { stdio: ["ignore", "pipe", "inherit"], env: fixtureEnv });
        let out = "";
        parent.stdout!.on("data", (b: Buffer) => (out += b.toString()));
        const code = await new Promise<number | null>((resolve) => parent.on("close", resolve));
        expect(code).toBe(0);
        const pid = Number(out.trim());
        expect(pid).toBeGreaterThan(0);
        extraPids.push(pid);
        // Not our child, so no exit event: poll its state, with a deadline.
        const deadline = Date.now() + 20_000;
        while (!isGone(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        expect(isGone(pid)).toBe(true);
      },
      PROCESS_TEST_TIMEOUT,
    );
  });

  describe(`StdioChildTransport.launch(): the process starts ahead of start() [${spawnApi}]`, () => {
    test(
      "the child runs before start(); start() adopts it, and close() stops it by stdin EOF",
      async () => {
        const log = watchedLogger();
        const t = child("stderr", { logger: log.logger });
        t.launch();
        await log.until(() => log.stderrLines().includes("line one")); // running and wired, start() not called yet
        const pid = t.pid!;
        expect(pid).toBeGreaterThan(0);
        await t.start();
        expect(t.pid).toBe(pid);
        await t.close();
        expect(t.exitStatus).toEqual({ code: 0, signal: null });
        expect(isGone(pid)).toBe(true);
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "messages flow after launch() then start(), as after start() alone",
      async () => {
        const t = child("env", { env: { FROM_OPTIONS: "yes" } });
        const got = new Promise<unknown>((resolve) => (t.onmessage = resolve));
        t.launch();
        t.launch(); // idempotent: one process
        await t.start();
        expect(await got).toEqual(note("env", { configured: "yes", leaked: null, hasPath: true }));
        const again = await t.start().catch((e) => e);
        expect(AgentdError.isInstance(again) && again.code).toBe("E_TRANSPORT");
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "close() right after launch(), before the process is even up, still stops and reaps it",
      async () => {
        // It exits on stdin EOF once it runs: the grace outlasts a start-up on a loaded machine (no SIGTERM then).
        const t = child("stderr", { closeGraceMs: 20_000 });
        const c = closedOnce(t);
        t.launch();
        await t.close();
        const pid = t.pid!;
        expect(pid).toBeGreaterThan(0);
        expect(t.exitStatus).toEqual({ code: 0, signal: null }); // it saw stdin end as soon as it started reading
        expect(isGone(pid)).toBe(true);
        expect(c.count()).toBe(1);
        const late = await t.start().catch((e) => e);
        expect(AgentdError.isInstance(late) && late.code).toBe("E_CONNECTION_CLOSED");
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "a launch that cannot spawn is reported by start(), with the same clear error",
      async () => {
        const ghost = make({ name: "ghost", command: "agentd-no-such-command-xyz" });
        ghost.launch();
        const e = await ghost.start().catch((err) => err);
        expect(AgentdError.isInstance(e) && e.code).toBe("E_TRANSPORT");
        expect(e.message).toBe("could not start MCP server 'ghost': command 'agentd-no-such-command-xyz' not found");
        await ghost.close();
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "a failed launch that settled before start() is still reported by start() with its own error",
      async () => {
        const ghost = make({ name: "ghost", command: "agentd-no-such-command-xyz" });
        expect(await ghost.launch().catch((err) => (err as Error).message)).toContain("not found");
        const e = await ghost.start().catch((err) => err);
        expect(AgentdError.isInstance(e) && e.code).toBe("E_TRANSPORT");
        expect(e.message).toBe("could not start MCP server 'ghost': command 'agentd-no-such-command-xyz' not found");
        await ghost.close();
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "a launched child that exits before start() makes start() fail, naming the exit and what it wrote on stderr",
      async () => {
        const t = child("exit-after-hello");
        const closed = new Promise<void>((resolve) => (t.onclose = resolve));
        await t.launch();
        await closed;
        const e = await t.start().catch((err) => err);
        expect(AgentdError.isInstance(e) && e.code).toBe("E_TRANSPORT");
        expect(e.message).toBe("MCP server 'exit-after-hello' exited with code 3; nothing on stderr");
        await t.close();
      },
      PROCESS_TEST_TIMEOUT,
    );
  });

  /** Poll until `pid` is gone: it is not our child, so there is no exit event to wait for. */
  async function untilGone(pid: number, ms = 20_000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!isGone(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return isGone(pid);
  }

  describe(`StdioChildTransport: a server behind a wrapper (sh -c, npx, uvx) stops with it [${spawnApi}]`, () => {
    /** `sh -c` running the real server as its child; the server ignores stdin EOF and says its pid. */
    async function wrapped(serverArg = "") {
      const log = watchedLogger();
      const t = make({
        name: "wrapped",
        command: "sh",
        args: ["-c", '"$0" "$1" hang "$2"; echo wrapper-done', BUN, join(FIXTURES, "child-modes.ts"), serverArg],
        closeGraceMs: 300,
        termGraceMs: 300,
        logger: log.logger,
      });
      started.push(t);
      await t.start();
      const pidLine = /^pid (\d+)$/;
      await log.until(() => log.stderrLines().some((l) => pidLine.test(String(l))));
      const server = Number(pidLine.exec(String(log.stderrLines().find((l) => pidLine.test(String(l)))))![1]);
      extraPids.push(server);
      expect(server).not.toBe(t.pid);
      return { t, server };
    }

    test(
      "close(): the wrapper and the grandchild server are gone once it resolves",
      async () => {
        const { t, server } = await wrapped();
        await t.close();
        expect(t.exitStatus).toEqual({ code: null, signal: "SIGTERM" });
        expect(isGone(server)).toBe(true); // dead: ESRCH, or a zombie init has yet to reap
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "close(): a grandchild that ignores SIGTERM after its wrapper died of it is SIGKILLed",
      async () => {
        const { t, server } = await wrapped("ignore-term");
        await t.close();
        expect(t.exitStatus?.signal).toBe("SIGTERM"); // the wrapper died at once; its child did not
        expect(isGone(server)).toBe(true);
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "close(): a grandchild left behind by a wrapper that exited by itself is stopped",
      async () => {
        const t = child("grandchild", { closeGraceMs: 200 });
        const got = new Promise<{ params: { pid: number } }>((resolve) => (t.onmessage = (m) => resolve(m as never)));
        await t.start();
        const grandchild = (await got).params.pid;
        extraPids.push(grandchild);
        await t.close();
        expect(t.exitStatus).toEqual({ code: 0, signal: null });
        expect(isGone(grandchild)).toBe(true);
      },
      PROCESS_TEST_TIMEOUT,
    );

    /** Start `wrapped-parent.ts` in its own process group (as a shell starts a job); read its stdout lines. */
    function parentProcess(mode: "exit" | "wait" | "handle", serverArg = "") {
      const parent = spawn(BUN, [join(FIXTURES, "wrapped-parent.ts"), mode, serverArg], {
        stdio: ["ignore", "pipe", "inherit"],
        detached: true,
        env: fixtureEnv,
      });
      extraGroups.push(parent.pid!);
      let out = "";
      const waiters: Array<() => void> = [];
      parent.stdout!.on("data", (b: Buffer) => {
        out += b.toString();
        for (const w of waiters.splice(0)) w();
      });
      const line = (n: number) =>
        new Promise<string>((resolve, reject) => {
          const check = () => {
            const lines = out.split("\n");
            if (lines.length > n + 1) resolve(lines[n]!);
            else if (parent.exitCode !== null || parent.signalCode !== null) reject(new Error(`parent ended; stdout: ${out}`));
            else waiters.push(check);
          };
          check();
        });
      const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        parent.on("close", (code, signal) => resolve({ code, signal })),
      );
      parent.on("close", () => {
        for (const w of waiters.splice(0)) w();
      });
      /** The first line: the server's pid (the wrapper's group is cleaned up after the test, whatever happens). */
      const server = async () => {
        const [server, wrapper] = (await line(0)).split(" ").map(Number) as [number, number];
        extraPids.push(server);
        extraGroups.push(wrapper);
        return server;
      };
      return { parent, line, ended, server };
    }

    test(
      "our process exiting without close(): the exit hook stops the grandchild too",
      async () => {
        const p = parentProcess("exit", "ignore-term");
        const server = await p.server();
        expect(await p.ended).toEqual({ code: 0, signal: null });
        expect(await untilGone(server)).toBe(true);
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "Ctrl-C (SIGINT to our process group) with no handler still reaches the server, as before it had its own group",
      async () => {
        const p = parentProcess("wait");
        const server = await p.server();
        process.kill(-p.parent.pid!, "SIGINT"); // what the terminal does: the foreground group, not the server's
        expect(await p.ended).toEqual({ code: null, signal: "SIGINT" }); // the default action still ends us
        expect(await untilGone(server)).toBe(true);
      },
      PROCESS_TEST_TIMEOUT,
    );

    test(
      "Ctrl-C with the application's own SIGINT handler: it decides, and its close() stops the server",
      async () => {
        const p = parentProcess("handle");
        const server = await p.server();
        process.kill(-p.parent.pid!, "SIGINT");
        expect(await p.line(1)).toBe("closed");
        expect(await p.ended).toEqual({ code: 0, signal: null });
        expect(isGone(server)).toBe(true);
      },
      PROCESS_TEST_TIMEOUT,
    );
  });
}
