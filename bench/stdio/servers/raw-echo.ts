/** The stdio floor: echoes every stdin chunk back to stdout unchanged (so every NDJSON line comes back). */
export {};

const out = Bun.stdout.writer();
for await (const chunk of Bun.stdin.stream()) {
  out.write(chunk);
  out.flush();
}
