/**
 * Test fixture: a process that starts an MCP server behind a wrapper (`sh -c`, the server a grandchild that
 * ignores stdin EOF), prints "<grandchild pid> <wrapper pid>" on stdout, then (argv[2]):
 * - `exit`: exits at once without closing the transport (the exit hook must stop the server);
 * - `wait`: waits with no signal handler, so SIGINT ends it by default (it must still reach the server);
 * - `handle`: on SIGINT closes the transport, prints "closed", and exits 0 (the application's own shutdown).
 * argv[3] is passed to the server's `hang` mode (`ignore-term`).
 */
import { createLogger } from "../../log.ts";
import { StdioChildTransport } from "../stdio-child.ts";
import { fixtureSpawnApi } from "./spawn-api.ts";

const mode = process.argv[2];
let announced = false;
const logger = createLogger(
  (r) => {
    const m = r.event === "mcp.stderr" && typeof r.line === "string" ? /^pid (\d+)$/.exec(r.line) : null;
    if (!m || announced) return;
    announced = true;
    process.stdout.write(`${m[1]} ${t.pid}\n`, () => {
      if (mode === "exit") process.exit(0);
    });
  },
  { level: "info" },
);
const child = new URL("./child-modes.ts", import.meta.url).pathname;
const t = new StdioChildTransport({
  name: "wrapped",
  spawnApi: fixtureSpawnApi(),
  command: "sh",
  args: ["-c", '"$0" "$1" hang "$2"; echo wrapper-done', process.execPath, child, process.argv[3] ?? ""],
  logger,
  closeGraceMs: 200,
  termGraceMs: 200,
});
if (mode === "handle")
  process.on("SIGINT", () => {
    void t.close().then(() => process.stdout.write("closed\n", () => process.exit(0)));
  });
await t.start();
if (mode !== "exit") setInterval(() => {}, 60_000);
