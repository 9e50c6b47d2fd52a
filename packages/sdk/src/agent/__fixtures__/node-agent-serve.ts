/**
 * Test fixture, bundled for Node by `serve-node-conformance.test.ts` and run by `node`: an agent (no model,
 * server notifications on) served over HTTP on 127.0.0.1 with the runtime's own adapter. Prints one line,
 * `{"url":…,"runtime":…}`, once it listens; closes the agent when stdin ends.
 */
import { createAgent } from "../create-agent.ts";

const agent = createAgent({ capabilities: { serverNotifications: true } });
const serving = await agent.serve({ http: { hostname: "127.0.0.1", port: 0 } });
process.stdout.write(`${JSON.stringify({ url: serving.url?.href, runtime: typeof Bun === "undefined" ? "node" : "bun" })}\n`);
process.stdin.resume();
process.stdin.on("end", () => void agent.close().then(() => process.exit(0)));
