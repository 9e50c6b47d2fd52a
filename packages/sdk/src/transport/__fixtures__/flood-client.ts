/**
 * Test fixture: an MCP server that floods its client. It writes COUNT `ping` requests on stdout (waiting for
 * 'drain', so its own memory stays small) and reads nothing until SIGUSR1; then it reads every answer and
 * prints `answers N bytes B` on stderr and exits once all COUNT arrived. argv: COUNT.
 */
const count = Number(process.argv[2]);
let answers = 0;
let bytes = 0;
process.stdin.pause();
process.on("SIGUSR1", () => {
  process.stdin.on("data", (chunk: Uint8Array) => {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) answers++;
    if (answers >= count) {
      process.stderr.write(`answers ${answers} bytes ${bytes}\n`, () => process.exit(0));
    }
  });
  process.stdin.resume();
});
for (let id = 0; id < count; id += 500) {
  let batch = "";
  for (let i = id; i < Math.min(id + 500, count); i++) batch += `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`;
  if (!process.stdout.write(batch)) await new Promise((r) => process.stdout.once("drain", r));
}
process.stderr.write("all requests written\n");
export {};
