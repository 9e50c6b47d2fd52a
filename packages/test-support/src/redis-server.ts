/**
 * A real `redis-server` for tests: on 127.0.0.1, a free port (found by binding port 0), no persistence,
 * its working directory a fresh temp dir. `redisServerPath` is undefined when none is installed, so a
 * test can `skipIf` it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The redis-server binary, if installed. */
export const redisServerPath: string | undefined = Bun.which("redis-server") ?? undefined;

/** A running redis-server. */
export interface RunningRedis {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Start a redis-server; resolves once it accepts connections. */
export async function startRedis(): Promise<RunningRedis> {
  if (!redisServerPath) throw new Error("redis-server is not installed");
  const dir = mkdtempSync(join(tmpdir(), "agentd-redis-"));
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const proc = Bun.spawn(
      [
        redisServerPath,
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir,
        "--daemonize",
        "no",
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    // Wait for its own "Ready to accept connections" line (or its exit: the port was taken meanwhile).
    const ready = await (async () => {
      const decoder = new TextDecoder();
      let seen = "";
      for await (const chunk of proc.stdout) {
        seen += decoder.decode(chunk);
        if (seen.includes("Ready to accept connections")) return true;
      }
      return false;
    })();
    if (ready) {
      void proc.stdout.cancel().catch(() => {});
      return {
        url: `redis://127.0.0.1:${port}`,
        pid: proc.pid,
        async stop() {
          proc.kill("SIGKILL");
          await proc.exited;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await proc.exited;
    if (attempt >= 3) throw new Error(`redis-server did not start: ${await new Response(proc.stderr).text()}`);
  }
}
