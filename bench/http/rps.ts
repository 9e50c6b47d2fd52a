/**
 * Requests per second of each HTTP server: sessions opened beforehand (one per load connection), a check
 * that each answers the echo, a warm-up, then the measured load run.
 */
import { isEchoAnswer, openSession, POST_HEADERS, sessionHeaders, toolsCall } from "./mcp-session.ts";
import { RawConnection } from "./raw-http.ts";
import { drive, type LoadGenerator, type LoadRun } from "./load.ts";
import { isBareFloor, startServer, type ServerId } from "./http-servers.ts";

/** Open `n` initialized sessions on `port` and check each answers the echo tools/call. */
export async function prepareSessions(port: number, n: number): Promise<string[]> {
  const conn = await RawConnection.open(port);
  try {
    const sids: string[] = [];
    for (let i = 0; i < n; i++) {
      const sid = await openSession(conn);
      const r = await conn.request("POST", "/mcp", { ...POST_HEADERS, ...sessionHeaders(sid) }, toolsCall(1));
      if (!isEchoAnswer(r)) throw new Error(`echo in a new session answered ${r.status}: ${r.body.slice(0, 300)}`);
      sids.push(sid);
    }
    return sids;
  } finally {
    conn.close();
  }
}

/** One measured run of server `id` in `mode` (a fresh server process each time). */
export async function measureRps(
  gen: LoadGenerator,
  id: ServerId,
  mode: "json" | "sse",
  o: { connections: number; seconds: number; warmupSeconds: number },
): Promise<LoadRun> {
  const { child, port } = await startServer(id, mode, 1024);
  try {
    const bare = isBareFloor(id);
    const sids = bare ? [] : await prepareSessions(port, o.connections);
    if (bare) {
      const conn = await RawConnection.open(port);
      const r = await conn.request("POST", "/mcp", POST_HEADERS, toolsCall(1));
      conn.close();
      if (!isEchoAnswer(r)) throw new Error(`floor answered ${r.status}: ${r.body.slice(0, 300)}`);
    }
    if (o.warmupSeconds > 0) await drive(gen, port, o.connections, o.warmupSeconds, sids);
    return await drive(gen, port, o.connections, o.seconds, sids);
  } finally {
    await child.stop();
  }
}
