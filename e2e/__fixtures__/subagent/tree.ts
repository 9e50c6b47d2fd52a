/**
 * Test helper: find every process of one test's agentd tree — including any orphan re-parented to init —
 * by a tag in its environment (children inherit it), and wait for them to be gone.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The env variable that tags a test's processes. */
export const TAG_ENV = "AGENTD_TEST_TREE";

/** A fresh tag. */
export const newTag = (): string => `tree-${crypto.randomUUID()}`;

/** Whether a pid is alive and not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Live processes whose environment carries `tag`. */
export function tagged(tag: string): number[] {
  const needle = `${TAG_ENV}=${tag}\0`;
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").includes(needle) && isAlive(Number(entry))) out.push(Number(entry));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return out;
}

/** The tagged processes still alive after waiting up to `timeoutMs` for them to go. */
export async function taggedSurvivors(tag: string, timeoutMs = 15_000): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const alive = tagged(tag);
    if (alive.length === 0 || Date.now() > until) return alive;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGKILL every tagged process (test cleanup). */
export function killTagged(tag: string): void {
  for (const pid of tagged(tag))
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
}
