/**
 * Test fixture, bundled for Node by `adapter/node-runtime.test.ts` (as `scripts/build-packages.ts` bundles the
 * SDK) and run by `node`: serves the case server with the runtime's own adapter. argv[2] is the JSON of the
 * case options. Prints one line, `{"url":…,"runtime":…}`, once it listens; ends when stdin closes.
 */
import { startCaseServer } from "./case-server.ts";

const server = await startCaseServer(JSON.parse(process.argv[2] ?? "{}"));
process.stdout.write(`${JSON.stringify({ url: server.url.href, runtime: typeof Bun === "undefined" ? "node" : "bun" })}\n`);
process.stdin.resume();
process.stdin.on("end", () => void server.close().then(() => process.exit(0)));
