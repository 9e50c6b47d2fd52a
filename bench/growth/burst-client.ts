/**
 * The subscription burst's changes, made from a process of their own so that the agent process under
 * measurement does none of the control channel's work (100 HTTP requests over a unix socket cost the
 * sender ~0.4–2 ms of CPU each on the loaded bench machine, which would queue ahead of agentd's reads).
 *
 *   bun bench/growth/burst-client.ts SOCKET B     prints "ready", waits for a line on stdin, changes
 *                                                 file:///bench/r0.txt … r{B-1}.txt at once, prints the
 *                                                 epoch time (ms) each change's request was sent
 */
import { FakeServerControl } from "@agentd/testkit";

const [socket = "", b = "0"] = process.argv.slice(2);
const control = new FakeServerControl(socket);
const burst = Number(b);
process.stdout.write("ready\n");
for await (const _ of console) break;
const sentAt: number[] = [];
await Promise.all(
  Array.from({ length: burst }, (_, i) => {
    sentAt.push(performance.timeOrigin + performance.now());
    return control.setResource(`file:///bench/r${i}.txt`, "v1");
  }),
);
process.stdout.write(`${JSON.stringify({ sentAt })}\n`);
process.exit(0);
