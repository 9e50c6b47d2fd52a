/**
 * Start `serve-child.ts` as a real child process and talk to it: its URL, its resident set after a full
 * collection (`rss()`), its counters (`stats()`), and `stop()` by PID (stdin closed, then SIGKILL).
 */
import type { Subprocess } from "bun";

const CHILD = new URL("./serve-child.ts", import.meta.url).pathname;

/** A running child server. */
export interface ChildServer {
  pid: number;
  url: URL;
  /** RSS in bytes after the child ran a full collection. */
  rss(): Promise<number>;
  /** The HTTP server's counters. */
  stats(): Promise<{ sessions: number; streams: number }>;
  stop(): Promise<void>;
}

/** Start a child server with these HTTP server options, served agent options and answer size. */
export async function startChildServer(
  o: { serve?: Record<string, unknown>; served?: Record<string, unknown>; answerBytes?: number } = {},
): Promise<ChildServer> {
  const proc: Subprocess<"pipe", "pipe", "inherit"> = Bun.spawn([process.execPath, CHILD], {
    env: {
      PATH: process.env.PATH ?? "",
      SERVE_OPTIONS: JSON.stringify(o.serve ?? {}),
      SERVED_OPTIONS: JSON.stringify(o.served ?? {}),
      ANSWER_BYTES: String(o.answerBytes ?? 16),
    },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        lines.push(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
      }
      wake?.();
    }
    ended = true;
    wake?.();
  })();
  async function nextLine(): Promise<Record<string, any>> {
    while (lines.length === 0) {
      if (ended) throw new Error("child server exited");
      await new Promise<void>((r) => (wake = r));
    }
    return JSON.parse(lines.shift()!);
  }
  const ask = async (command: string) => {
    proc.stdin.write(`${command}\n`);
    proc.stdin.flush();
    return nextLine();
  };
  const { url } = await nextLine();
  return {
    pid: proc.pid,
    url: new URL(url),
    rss: async () => (await ask("gc")).rss as number,
    stats: async () => (await ask("stats")) as { sessions: number; streams: number },
    async stop() {
      try {
        proc.stdin.end();
      } catch {
        // already closed
      }
      const timer = setTimeout(() => proc.kill("SIGKILL"), 5_000);
      await proc.exited;
      clearTimeout(timer);
    },
  };
}
