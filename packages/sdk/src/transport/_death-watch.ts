/**
 * Internal: processes we started die with us, even when we die without warning (`kill -9`, the OOM killer),
 * when no exit hook or signal handler of ours runs.
 *
 * A stdio MCP server runs in its own process group (see `_process-tree.ts`), so nothing the kernel does on
 * our death reaches it: it and its children would live on under init. Linux's parent-death signal
 * (`PR_SET_PDEATHSIG`) does not fit: it must be set in the child between fork and exec (out of reach from
 * `node:child_process`, and from Bun without FFI), covers the direct child only (not a wrapper's children),
 * and fires when the *thread* that forked exits. Instead, one small watchdog per process: `/bin/sh` reading
 * a pipe whose only writer is us. We tell it, a line at a time, which process groups and processes are ours
 * now (`+TARGET`) and which stopped being ours (`-TARGET`); when the pipe reaches end-of-file — the kernel
 * closes our end however we die — it stops what is left (SIGTERM, then SIGKILL a second later) and exits. It runs in its own session with its
 * output on /dev/null, so it neither receives the terminal's Ctrl-C nor holds our stdout open; it keeps no
 * event-loop reference of ours, and gets none of our environment (no secrets).
 * It is a shell, not a second copy of us: ~1 MB, works the same under Node, Bun and the compiled binary,
 * and needs no privileges. Without `/bin/sh` (a distroless image) the protection is off, and the caller is
 * told why (once a process).
 *
 * Once nothing is registered (the last server is gone), the watchdog is stopped at once, so it is gone well
 * before we exit and an ordinary exit has nothing left to wait for (the next registration starts another).
 *
 * A line must be in the pipe before `killOnOurDeath` returns: a write still queued in our process dies
 * with us. Under Bun, `node:child_process` pipes may call the write callback before the bytes are written, so
 * there the watchdog is started with `Bun.spawn`, whose pipe writer flushes synchronously; under Node the
 * pipe write is attempted synchronously already. Known window: a child spawned but not yet registered
 * (between `spawn` returning and the registration, a few microseconds) is not covered.
 */
import { readFileSync } from "node:fs";
import { nodeChildProcess } from "../_internal/node-builtins.ts";

/**
 * The watchdog. `g` is a space-delimited set of targets: `-pgid` for a server's process group (dash's
 * `kill` reads it after the signal as a target), a pid for a subagent. At end-of-file, subagents get
 * SIGKILL at once (their own watchdogs then stop their servers); server groups get SIGTERM, a second to
 * clean up (the courtesy our own shutdown gives them), then SIGKILL to what is left. `kill` goes on past
 * a target that is gone already.
 */
const SCRIPT = `trap '' INT HUP
g=' '
while IFS= read -r l; do
  case $l in
    +*) g="$g\${l#+} ";;
    -*) t=\${l#-}; case $g in *" $t "*) g="\${g%% $t *} \${g#* $t }";; esac;;
  esac
done
p=; q=
for t in $g; do case $t in -*) q="$q $t";; *) p="$p $t";; esac; done
[ -z "$p" ] || kill -9 $p 2>/dev/null
[ -n "$q" ] || exit 0
kill -TERM $q 2>/dev/null
i=0
while [ $i -lt 10 ]; do
  a=; for t in $q; do kill -0 $t 2>/dev/null && a=1; done
  [ -n "$a" ] || exit 0
  sleep 0.1; i=$((i+1))
done
kill -9 $q 2>/dev/null
`;

/** The watchdog's environment: enough to find `sleep`, none of ours (no secrets). */
const WATCHDOG_ENV = { PATH: "/usr/bin:/bin" };

/** What is registered: target → how many registrations hold it. */
const targets = new Map<string, number>();
let watchdog: Watchdog | undefined;
/** Watchdogs told to stop (nothing left to guard) whose exit has not been seen yet. */
const stopping = new Set<Watchdog>();
/** Why no watchdog can run here, once that is known. */
let unavailable: string | undefined;
let reported = false;

/** The running watchdog: its pid, and a write that has put the text in the pipe when it returns. */
interface Watchdog {
  readonly pid: number | undefined;
  write(text: string): void;
  /** Close our end of the pipe (its end-of-file, with nothing registered, stops nothing). */
  end(): void;
}

/** A registration with the watchdog; `release()` once the target is gone, so a reused id is never killed. */
export interface DeathGuard {
  release(): void;
}

/**
 * SIGKILL `target` if this process dies while it is registered: `{ group }` a whole process group (a child
 * spawned `detached`), `{ pid }` one process. POSIX only; elsewhere a no-op. `onUnavailable` hears, once a
 * process, that no watchdog can be started (so the caller can log it).
 */
export function killOnOurDeath(target: { group: number } | { pid: number }, onUnavailable?: (reason: string) => void): DeathGuard {
  if (process.platform === "win32") return { release: () => {} };
  const key = "group" in target ? `-${target.group}` : String(target.pid);
  targets.set(key, (targets.get(key) ?? 0) + 1);
  tell(`+${key}`, onUnavailable);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      const n = (targets.get(key) ?? 1) - 1;
      if (n > 0) targets.set(key, n);
      else {
        targets.delete(key);
        if (targets.size > 0) tell(`-${key}`);
        else retire(`-${key}\n`);
      }
    },
  };
}

/** The watchdog's pid, while one runs (tests). */
export function deathWatchPid(): number | undefined {
  return watchdog?.pid;
}

/**
 * Nothing is registered any more: let the watchdog go now, while we still run, rather than at our exit.
 * SIGKILL (it guards nothing, so it has nothing to do) ends it at once, where end-of-file alone would leave it
 * reading the pipe a byte at a time for a while; the `last` line and the closed pipe cover a kill that failed.
 */
function retire(last: string): void {
  const w = watchdog;
  if (!w) return;
  watchdog = undefined;
  stopping.add(w);
  w.write(last);
  w.end();
  if (w.pid !== undefined) signal(w.pid);
}

function tell(line: string, onUnavailable?: (reason: string) => void): void {
  if (unavailable !== undefined) return giveUp(unavailable, onUnavailable);
  // A new watchdog is told the whole current set instead (the change is already in it).
  if (!watchdog) return start(onUnavailable);
  watchdog.write(`${line}\n`);
}

/**
 * An ordinary exit does the watchdog's work itself, synchronously, and stops it: once our exit status is
 * visible, nothing of ours runs any more (a watchdog finishing a moment later would be seen as left over).
 * A watchdog already seen to exit (retired once nothing was registered: the usual case) costs nothing here.
 */
function onExit(): void {
  for (const key of targets.keys()) signal(Number(key));
  targets.clear();
  for (const w of [watchdog, ...stopping]) if (w?.pid !== undefined) stop(w.pid);
}

/**
 * SIGKILL a watchdog and wait (briefly, Linux) until it is a zombie or gone: the signal lands when the kernel
 * next runs it. A retired one is a zombie already, as a rule: one read of its state.
 */
function stop(pid: number): void {
  signal(pid);
  if (process.platform !== "linux") return;
  const until = performance.now() + 250;
  while (performance.now() < until) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    } catch {
      return;
    }
    const state = stat[stat.lastIndexOf(")") + 2];
    if (state === "Z" || state === "X") return;
  }
}

function signal(target: number): void {
  try {
    process.kill(target, "SIGKILL");
  } catch {
    // Gone already.
  }
}

let exitHookInstalled = false;

/** Start the watchdog and tell it what is registered (after one that died, all of it). */
function start(onUnavailable?: (reason: string) => void): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", onExit);
  }
  try {
    const w = typeof Bun !== "undefined" ? spawnWithBun() : spawnWithNode(onUnavailable);
    watchdog = w;
    w.write([...targets.keys()].map((k) => `+${k}\n`).join(""));
  } catch (e) {
    giveUp(e instanceof Error ? e.message : String(e), onUnavailable);
  }
}

/** The watchdog ended (retired, or died, which it never should while we live): forget it; the next registration starts another. */
function ended(w: Watchdog): void {
  if (watchdog === w) watchdog = undefined;
  stopping.delete(w);
}

function spawnWithBun(): Watchdog {
  const proc = Bun.spawn(["/bin/sh", "-c", SCRIPT], {
    stdin: "pipe",
    stdout: "ignore",
    stderr: "ignore",
    detached: true,
    env: WATCHDOG_ENV,
  });
  // Never what keeps us alive: we exit when our own work is done, and that exit is its cue.
  proc.unref();
  proc.stdin.unref();
  const w: Watchdog = {
    pid: proc.pid,
    write(text) {
      try {
        proc.stdin.write(text);
        void Promise.resolve(proc.stdin.flush()).catch(() => ended(w));
      } catch {
        ended(w);
      }
    },
    end() {
      try {
        void Promise.resolve(proc.stdin.end()).catch(() => {});
      } catch {
        // Gone already: its exit is reported below.
      }
    },
  };
  void proc.exited.then(() => ended(w));
  return w;
}

function spawnWithNode(onUnavailable?: (reason: string) => void): Watchdog {
  const child = nodeChildProcess().spawn("/bin/sh", ["-c", SCRIPT], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
    env: WATCHDOG_ENV,
  });
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  child.stdin?.on("error", () => ended(w));
  const w: Watchdog = {
    pid: child.pid,
    write(text) {
      try {
        child.stdin?.write(text);
      } catch {
        ended(w);
      }
    },
    end() {
      child.stdin?.end();
    },
  };
  child.once("error", (e) => {
    ended(w);
    if (child.pid === undefined) giveUp(e.message, onUnavailable);
  });
  child.once("exit", () => ended(w));
  return w;
}

function giveUp(reason: string, onUnavailable?: (reason: string) => void): void {
  unavailable = reason;
  watchdog = undefined;
  if (reported || !onUnavailable) return;
  reported = true;
  onUnavailable(`cannot start /bin/sh, so processes started by agentd outlive it if it is killed: ${reason}`);
}
