/**
 * A pipe reader that starts late and reads slowly: `bun late-reader.ts DELAY_MS OUT_FILE`. It waits
 * DELAY_MS before its first read, pauses a millisecond after every chunk, and writes what it read to
 * OUT_FILE once its stdin ends. The writer on the other side of the pipe is meant to be done (or blocked)
 * long before this reader drains it.
 */
import { writeFileSync } from "node:fs";

const [delay, out] = [Number(process.argv[2] ?? 0), process.argv[3]];
if (!out) throw new Error("usage: late-reader.ts DELAY_MS OUT_FILE");
await Bun.sleep(delay);
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) {
  chunks.push(chunk as Buffer);
  await Bun.sleep(1);
}
writeFileSync(out, Buffer.concat(chunks));
