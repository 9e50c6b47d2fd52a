/**
 * Test fixture: serves a StdioServerTransport on this process's stdin/stdout and relays every message to
 * and from a StreamTransport on a loopback TCP connection to the test (argv: PORT [--noise]). The test
 * thereby holds both ends of a real stdio pair. When either side closes, the other is closed and the
 * process exits by itself.
 */
import { connect } from "node:net";
import type { JsonRpcMessage } from "../../wire/jsonrpc.ts";
import { StdioServerTransport } from "../stdio-self.ts";
import { StreamTransport } from "../stdio-streams.ts";

const socket = connect(Number(process.argv[2]), "127.0.0.1");
await new Promise((resolve, reject) => {
  socket.once("connect", resolve);
  socket.once("error", reject);
});
const stdio = new StdioServerTransport();
const net = new StreamTransport(socket, socket);
const forward = (to: StreamTransport) => (m: unknown) => void to.send(m as JsonRpcMessage).catch(() => {});
stdio.onmessage = forward(net);
net.onmessage = forward(stdio);
stdio.onframeerror = (e) => console.error(`relay: frame error on stdin: ${e.error.message}`);
stdio.onclose = () => void net.close();
net.onclose = () => void stdio.close();
await stdio.start();
await net.start();
// Must land on stderr: StdioServerTransport guards stdout against console output.
if (process.argv.includes("--noise")) console.log("relay: console.log noise");
