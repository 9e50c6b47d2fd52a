/**
 * Test fixture, bundled for Node by `stdio-child-node.test.ts` (as `scripts/build-packages.ts` bundles the
 * SDK) and run by `node`: the stdio client transport's guarantees under Node itself, where it spawns with
 * `node:child_process`. Prints one JSON report on stdout. argv: BUN CHILD_MODES (the server fixtures run
 * under Bun).
 */
import { readFileSync } from "node:fs";
import { createLogger, type LogRecord } from "../../log.ts";
import { DEFAULT_SPAWN_API } from "../_server-process.ts";
import { StdioChildTransport } from "../stdio-child.ts";

const [bun = "bun", childModes = ""] = process.argv.slice(2);
const report: Record<string, unknown> = {
  runtime: typeof Bun === "undefined" ? "node" : "bun",
  defaultSpawnApi: DEFAULT_SPAWN_API,
};

/** `[pgrp, session]` of a process, or null once it is gone or a zombie. */
function groupOf(pid: number): [number, number] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const [state, , pgrp, session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return state === "Z" ? null : [Number(pgrp), Number(session)];
  } catch {
    return null;
  }
}

// A message arrives; the child leads its own group; closing stdin ends it.
{
  const t = new StdioChildTransport({
    name: "env",
    command: bun,
    args: [childModes, "env"],
    env: { FROM_OPTIONS: "yes" },
    closeGraceMs: 20_000,
  });
  const got = new Promise<unknown>((resolve) => (t.onmessage = resolve));
  await t.start();
  report.message = await got;
  report.ownGroup = JSON.stringify(groupOf(t.pid!)) === JSON.stringify([t.pid, t.pid]);
  await t.close();
  report.closedExit = t.exitStatus;
}

// A server behind `sh -c` that ignores SIGTERM: close() stops the whole tree.
{
  const records: LogRecord[] = [];
  let serverPid!: (pid: number) => void;
  const server = new Promise<number>((resolve) => (serverPid = resolve));
  const logger = createLogger((r) => {
    records.push(r);
    const m = r.event === "mcp.stderr" ? /^pid (\d+)$/.exec(String(r.line)) : null;
    if (m) serverPid(Number(m[1]));
  });
  const t = new StdioChildTransport({
    name: "wrapped",
    command: "sh",
    args: ["-c", '"$0" "$1" hang ignore-term; echo wrapper-done', bun, childModes],
    closeGraceMs: 300,
    termGraceMs: 300,
    logger,
  });
  await t.start();
  const pid = await server;
  report.serverInWrapperGroup = groupOf(pid)?.[0] === t.pid;
  await t.close();
  report.wrapperExit = t.exitStatus;
  report.serverGone = groupOf(pid) === null;
}

// A server that exits by itself: its last message arrives, and the exit is named.
{
  const t = new StdioChildTransport({ name: "quitter", command: bun, args: [childModes, "exit-after-hello"] });
  const messages: unknown[] = [];
  const errors: string[] = [];
  t.onmessage = (m) => messages.push(m);
  t.onerror = (e) => errors.push(e.message);
  const closed = new Promise<void>((resolve) => (t.onclose = resolve));
  await t.start();
  await closed;
  report.lastMessages = messages;
  report.exitErrors = errors;
  report.closeReason = t.closeReason?.message;
  await t.close();
}

// A command that cannot be started: one clear line.
{
  const t = new StdioChildTransport({ name: "ghost", command: "agentd-no-such-command-xyz" });
  report.notFound = await t.start().then(
    () => "started",
    (e: Error) => e.message,
  );
  await t.close();
}

process.stdout.write(`${JSON.stringify(report)}\n`);
