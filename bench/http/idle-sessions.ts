/**
 * The idle-session client: opens MCP sessions on a Streamable HTTP server, each on its own keep-alive
 * connection — initialize, notifications/initialized, then a GET SSE stream left open. At each checkpoint it
 * prints `{"open":N}` and waits for a `next` line on stdin before going on; the parent reads the server's
 * RSS meanwhile. After the last checkpoint it holds everything open until stdin closes.
 *
 *   bun bench/http/idle-sessions.ts PORT 1000,10000 [PARALLEL]
 */
import { openSession, sessionHeaders } from "./mcp-session.ts";
import { RawConnection } from "./raw-http.ts";

const [port = "0", checkpointList = "1000", parallel = "32"] = process.argv.slice(2);
const checkpoints = checkpointList.split(",").map(Number);
const conns: RawConnection[] = [];

const lines: string[] = [];
let wake: (() => void) | undefined;
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d: string) => {
  lines.push(...d.split("\n").filter(Boolean));
  wake?.();
});
let stdinEnded = false;
process.stdin.on("end", () => {
  stdinEnded = true;
  wake?.();
});
const nextLine = () =>
  new Promise<void>((resolve) => {
    if (lines.shift() !== undefined || stdinEnded) return resolve();
    wake = () => {
      wake = undefined;
      lines.shift();
      resolve();
    };
  });

/** One session: its own connection, initialized, with the GET stream open (headers received). */
async function openIdle(): Promise<void> {
  const conn = await RawConnection.open(Number(port));
  const sid = await openSession(conn);
  const r = await conn.openStream("/mcp", { Accept: "text/event-stream", ...sessionHeaders(sid) });
  if (r.status !== 200) throw new Error(`GET stream answered ${r.status}`);
  conns.push(conn);
}

const started = performance.now();
for (const target of checkpoints) {
  let next = conns.length;
  await Promise.all(
    Array.from({ length: Number(parallel) }, async () => {
      while (next < target) {
        next++;
        await openIdle();
      }
    }),
  );
  const closed = conns.filter((c) => c.closed).length;
  console.log(JSON.stringify({ open: conns.length - closed, closed, seconds: (performance.now() - started) / 1000 }));
  await nextLine();
}
while (!stdinEnded) await nextLine();
for (const c of conns) c.close();
process.exit(0);
