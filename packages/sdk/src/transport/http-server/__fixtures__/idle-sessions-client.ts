/**
 * A client process for the idle-session memory test: opens N MCP sessions on a Streamable HTTP server —
 * `initialize`, `notifications/initialized`, then a GET stream left open (its priming event read) — prints
 * `{"open":N}` once all are open, and holds them until stdin closes.
 *
 *   bun idle-sessions-client.ts URL N [PARALLEL]
 */
export {};

const [url = "", countArg = "100", parallelArg = "16"] = process.argv.slice(2);
const count = Number(countArg);
const POST = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const REVISION = "2025-11-25";
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: "idle", version: "1.0.0" } },
});
const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
const held: ReadableStreamDefaultReader<Uint8Array>[] = [];

async function openIdle(): Promise<void> {
  const init = await fetch(url, { method: "POST", headers: POST, body: initialize });
  const sid = init.headers.get("mcp-session-id");
  const body = await init.text();
  if (init.status !== 200 || !sid || !body.includes(REVISION)) throw new Error(`initialize answered ${init.status}: ${body.slice(0, 200)}`);
  const session = { "mcp-session-id": sid, "mcp-protocol-version": REVISION };
  const ack = await fetch(url, { method: "POST", headers: { ...POST, ...session }, body: initialized });
  await ack.text();
  if (ack.status !== 202) throw new Error(`notifications/initialized answered ${ack.status}`);
  const get = await fetch(url, { headers: { accept: "text/event-stream", ...session } });
  if (get.status !== 200 || !get.body) throw new Error(`GET stream answered ${get.status}`);
  const reader = get.body.getReader();
  // The priming event: the stream is open on the server's side.
  const first = await reader.read();
  if (first.done) throw new Error("GET stream ended at once");
  held.push(reader);
}

let next = 0;
await Promise.all(
  Array.from({ length: Number(parallelArg) }, async () => {
    while (next < count) {
      next++;
      await openIdle();
    }
  }),
);
process.stdout.write(`${JSON.stringify({ open: held.length })}\n`);
process.stdin.resume();
process.stdin.on("end", () => {
  for (const r of held) void r.cancel().catch(() => {});
  process.exit(0);
});
