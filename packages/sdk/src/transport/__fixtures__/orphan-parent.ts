/**
 * Test fixture: starts an MCP child that ignores SIGTERM, prints the child's pid on stdout, then exits
 * without closing it. The exit hook in stdio-child.ts must SIGKILL the child so it is not orphaned.
 */
import { StdioChildTransport } from "../stdio-child.ts";
import { fixtureSpawnApi } from "./spawn-api.ts";

const t = new StdioChildTransport({
  name: "orphan",
  spawnApi: fixtureSpawnApi(),
  command: process.execPath,
  args: [new URL("./child-modes.ts", import.meta.url).pathname, "ignore-term"],
});
await t.start();
process.stdout.write(`${t.pid}\n`, () => process.exit(0));
