/**
 * A process whose only work is a {@link Protocol} with requests in flight over a memory pair whose far end
 * never answers (for `pending-requests.test.ts`): the test checks whether the requests' timer keeps the
 * process alive, as one timer per request did. Prints each request's outcome code as it settles.
 *
 *   bun pending-liveness.ts pending   requests with timeouts of 200 ms, 400 ms and none (Infinity): the process
 *                                     lives until the first two time out, and exits with the third pending
 *   bun pending-liveness.ts closed    three requests with 600 s timeouts, then close: all reject, and the
 *                                     process exits at once
 *   bun pending-liveness.ts answered  one request with a 600 s timeout, answered: the process exits at once
 */
import { MemoryTransport } from "../../../transport/memory.ts";
import { Protocol } from "../protocol.ts";

const [mode = ""] = process.argv.slice(2);
const [a, b] = MemoryTransport.createPair();
const protocol = new Protocol(a);
await protocol.start();
b.onmessage = (m) => {
  const msg = m as { id?: number; method?: string };
  if (mode === "answered" && msg.method === "ping") void b.send({ jsonrpc: "2.0", id: msg.id!, result: {} });
};
await b.start();
const report = (name: string, p: Promise<unknown>) =>
  p.then(
    () => console.log(`${name} ok`),
    (e: { code?: unknown }) => console.log(`${name} ${String(e.code)}`),
  );
if (mode === "pending") {
  void report("never", protocol.request("ping", undefined, { timeoutMs: Infinity, maxTotalTimeoutMs: Infinity }));
  void report("short", protocol.request("ping", undefined, { timeoutMs: 200 }));
  void report("middle", protocol.request("ping", undefined, { timeoutMs: 400 }));
} else if (mode === "closed") {
  const all = [1, 2, 3].map((n) => report(`r${n}`, protocol.request("ping", undefined, { timeoutMs: 600_000 })));
  await protocol.close();
  await Promise.all(all);
} else if (mode === "answered") {
  await report("r", protocol.request("ping", undefined, { timeoutMs: 600_000 }));
} else throw new Error(`unknown mode ${mode}`);
