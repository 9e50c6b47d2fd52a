/**
 * The subscription burst's changes, made from a process of their own so that the agent process under
 * measurement does none of the control channel's work.
 *
 *   bun bench/growth/burst-client.ts SOCKET B [TEXT]   prints "ready", waits for a line on stdin, changes
 *                                                      file:///bench/r0.txt … r{B-1}.txt to TEXT (default
 *                                                      "v1") at once, prints the epoch time (ms) each
 *                                                      change's request was sent
 *
 * The B changes go in one control command (`setResources`): the fake server applies them and sends their
 * notifications at once. With one HTTP request per change, the fake server (one Bun process serving the
 * control socket and the agent's stdio) did not read its stdin while control requests were pending: every
 * `resources/read` of the burst waited for the last change's request, 150–450 ms on the loaded machine, and
 * the figure measured the fake server's event loop, not agentd.
 */
import { FakeServerControl } from "@agentd/testkit";

const [socket = "", b = "0", text = "v1"] = process.argv.slice(2);
const control = new FakeServerControl(socket);
const burst = Number(b);
process.stdout.write("ready\n");
for await (const _ of console) break;
const at = performance.timeOrigin + performance.now();
await control.setResources(Array.from({ length: burst }, (_, i) => ({ uri: `file:///bench/r${i}.txt`, content: text })));
process.stdout.write(`${JSON.stringify({ sentAt: Array.from({ length: burst }, () => at) })}\n`);
process.exit(0);
