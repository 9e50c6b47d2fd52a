/** Test helper: the live descendants of a process, read from /proc (Linux), and waiting for PIDs to go. */
import { readdirSync, readFileSync } from "node:fs";

/** Direct children of `pid` (every thread's `children` list). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    try {
      for (const c of readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/)) if (c) out.push(Number(c));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** All descendants of `pid`, depth first. */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const stack = childrenOf(pid);
  while (stack.length) {
    const p = stack.pop() as number;
    out.push(p);
    stack.push(...childrenOf(p));
  }
  return out;
}

/** Whether `pid` is alive (a zombie counts as gone: it has exited). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** The PIDs still alive after waiting up to `timeoutMs` for all of them to go. */
export async function survivors(pids: number[], timeoutMs = 15_000): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() > until) return alive;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** SIGKILL whatever of `pids` is still alive (test cleanup). */
export function killAll(pids: number[]): void {
  for (const p of pids)
    try {
      if (isAlive(p)) process.kill(p, "SIGKILL");
    } catch {
      // Gone.
    }
}
