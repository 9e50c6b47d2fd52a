/**
 * Test fixture: `@modelcontextprotocol/server-everything` in `streamableHttp` mode as a child process,
 * forced onto 127.0.0.1 by the `bind-loopback.ts` preload (the server itself binds every interface).
 */
import { fileURLToPath } from "node:url";

const PRELOAD = fileURLToPath(new URL("./bind-loopback.ts", import.meta.url));
const ENTRY = Bun.resolveSync("@modelcontextprotocol/server-everything/dist/index.js", import.meta.dir);

/** A port that was free a moment ago (bind port 0 on loopback, read it, release it). */
export function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/** A running server-everything. */
export interface Everything {
  url: string;
  /** The address it actually bound, as reported by the preload. */
  bound: { address: string; port: number };
  pid: number;
  /** Kill it (SIGKILL) and wait for the exit. Idempotent. */
  kill(): Promise<void>;
}

/** Start server-everything on `port`; resolves once it is listening (fails after `ms`). */
export async function startEverything(port: number, ms = 30_000): Promise<Everything> {
  const proc = Bun.spawn([process.execPath, "--preload", PRELOAD, ENTRY, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdin: "ignore",
    stdout: "ignore", // it logs every request there; we do not need it
    stderr: "pipe",
  });
  const kill = async () => {
    proc.kill("SIGKILL");
    await proc.exited;
  };
  let stderr = "";
  const bound = new Promise<{ address: string; port: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start in ${ms} ms: ${stderr}`)), ms);
    void proc.exited.then((code) => reject(new Error(`server-everything exited (${code}) before listening: ${stderr}`)));
    void (async () => {
      const decoder = new TextDecoder();
      // Keep draining stderr for the life of the process so it can never block on a full pipe.
      for await (const chunk of proc.stderr) {
        stderr += decoder.decode(chunk, { stream: true });
        const line = /\[bind-loopback\] (\{.*\})/.exec(stderr);
        if (line) {
          clearTimeout(timer);
          resolve(JSON.parse(line[1]!));
        }
        if (stderr.length > 64 * 1024) stderr = stderr.slice(-16 * 1024);
      }
    })();
  });
  try {
    const addr = await bound;
    return { url: `http://127.0.0.1:${port}/mcp`, bound: addr, pid: proc.pid, kill };
  } catch (e) {
    await kill();
    throw e;
  }
}
