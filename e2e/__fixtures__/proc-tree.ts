/**
 * The process tree from /proc (Linux): a test collects agentd's descendants before signalling it, and
 * checks afterwards that none is left alive (no orphans).
 */
import { readdirSync, readFileSync } from "node:fs";

/** Parent pid and state of a process, or undefined when it is gone. */
function stat(pid: number): { ppid: number; state: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ")".
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: rest[0] as string, ppid: Number(rest[1]) };
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root` (children, grandchildren …). */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const s = stat(pid);
    if (!s || s.state === "Z") continue;
    const list = children.get(s.ppid) ?? [];
    list.push(pid);
    children.set(s.ppid, list);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

/** Whether `pid` is a live process (a zombie counts as gone). */
export function isAlive(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== "Z";
}

/** The command line of a process ("" when gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}
