/**
 * Internal: the processes behind one stdio MCP server, stopped as a whole, and never outliving us.
 *
 * A server is often started through a wrapper (`sh -c`, `npx`, `uvx`): signalling only the direct child
 * leaves the real server running, re-parented to init. So on POSIX the child gets its own process group
 * (`detached: true`) and every signal goes to the group (`kill(-pgid)`); Windows keeps signalling the child.
 *
 * Its own group means the terminal's Ctrl-C (SIGINT to our foreground group) no longer reaches it. Two
 * paths replace that: an application that handles the signal (the CLI drains) closes its transports, which
 * stop each group, and its later `process.exit` runs the exit hook, which SIGKILLs what is left; and while
 * nobody else listens for SIGINT, SIGTERM or SIGHUP (so the default action is about to end us), our listener
 * sends that signal to every group, as the terminal would have, then re-raises it on ourselves.
 *
 * Neither runs when we are killed outright (SIGKILL, the OOM killer): for that, every group is also
 * registered with the watchdog of `_death-watch.ts`, which stops it when we are gone.
 */
import { readdirSync, readFileSync } from "node:fs";
import { killOnOurDeath } from "./_death-watch.ts";

/** Whether children get their own process group and are signalled as one. */
export const OWN_PROCESS_GROUP = process.platform !== "win32";

/** One spawned server: its pid and, on POSIX, everything in its process group. */
export interface ProcessTree {
  readonly pid: number;
  /** Signal the whole group (POSIX) or the child (Windows); a tree already gone is not an error. */
  signal(sig: NodeJS.Signals): void;
  /** Whether anything of it is still running (on Windows: the child, until it exited). */
  alive(): boolean;
  /** It is all gone, or stopped being ours: the exit hook and signal forwarding forget it. */
  forget(): void;
}

const live = new Set<ProcessTree>();
const FORWARDED: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
let exitHookInstalled = false;
let forwarding = false;

function onExit(): void {
  for (const tree of live) tree.signal("SIGKILL");
}

/** Marks our listener, so a second copy of this module (two SDK builds in one process) is not "someone else". */
const FORWARDER = Symbol.for("agentd.stdio.signal-forwarder");
const handledElsewhere = (sig: NodeJS.Signals) => process.listeners(sig).some((l) => !(l as unknown as Record<symbol, unknown>)[FORWARDER]);

function onSignal(sig: NodeJS.Signals): void {
  // Prepended, so every listener registered at this moment still counts (a `once` one included): another
  // listener means the application handles the signal and its own shutdown closes our transports.
  if (handledElsewhere(sig)) return;
  for (const tree of live) tree.signal(sig);
  stopForwarding();
  process.kill(process.pid, sig); // the default action, now that no listener of ours is left
}
(onSignal as unknown as Record<symbol, unknown>)[FORWARDER] = true;

function startForwarding(): void {
  if (forwarding || !OWN_PROCESS_GROUP) return;
  forwarding = true;
  for (const sig of FORWARDED) process.prependListener(sig, onSignal);
}

function stopForwarding(): void {
  if (!forwarding) return;
  forwarding = false;
  for (const sig of FORWARDED) process.off(sig, onSignal);
}

/** The little of a spawned child that tracking needs (a `node:child_process` child and a `Bun.spawn` one both fit). */
export interface TrackedChild {
  readonly pid?: number | undefined;
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  kill(signal: NodeJS.Signals): unknown;
}

/**
 * Track a spawned child (spawned with `detached: OWN_PROCESS_GROUP`) until {@link ProcessTree.forget}.
 * `onUnguarded` hears why, if its group cannot be guarded against our sudden death (see `_death-watch.ts`).
 */
export function trackTree(child: TrackedChild, onUnguarded?: (reason: string) => void): ProcessTree {
  const pid = child.pid as number;
  const guard = OWN_PROCESS_GROUP ? killOnOurDeath({ group: pid }, onUnguarded) : undefined;
  const tree: ProcessTree = OWN_PROCESS_GROUP
    ? {
        pid,
        signal: (sig) => {
          try {
            process.kill(-pid, sig);
          } catch {
            // ESRCH: the group is empty already.
          }
        },
        alive: () => {
          try {
            process.kill(-pid, 0);
          } catch (e) {
            return (e as NodeJS.ErrnoException).code === "EPERM";
          }
          return process.platform === "linux" ? groupRunning(pid) : true;
        },
        forget,
      }
    : {
        pid,
        signal: (sig) => {
          try {
            child.kill(sig);
          } catch {
            // Already gone.
          }
        },
        alive: () => child.exitCode === null && child.signalCode === null,
        forget,
      };
  function forget(): void {
    guard?.release();
    live.delete(tree);
    if (live.size === 0) stopForwarding();
  }
  live.add(tree);
  startForwarding();
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", onExit);
  }
  return tree;
}

/**
 * Linux: whether a member of process group `pgid` still runs. `kill(-pgid, 0)` also counts zombies, and an
 * orphan's zombie lasts until init reaps it (a second or more under some container inits), so look at the
 * states. Only asked while the group is not empty, which is while closing a server that left processes.
 */
function groupRunning(pgid: number): boolean {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ")".
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 3);
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
  }
  return false;
}

/**
 * Wait until nothing of `tree` runs, at most `ms`. Members of a group are not our children, so there is no
 * exit event to wait for: poll, briefly (this runs only while closing, and only when something is left).
 */
export async function waitGone(tree: ProcessTree, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (tree.alive()) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await new Promise((r) => setTimeout(r, Math.min(20, left)));
  }
  return true;
}
