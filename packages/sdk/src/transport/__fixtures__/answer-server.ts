/**
 * Test fixture: a StdioServerTransport that answers every request at once with `{ pad }` (argv: PAD_CHARS),
 * without any protocol layer in between, so the bytes of each answer are known exactly. It ends by itself
 * when stdin closes.
 */
import type { JsonRpcMessage } from "../../wire/jsonrpc.ts";
import { StdioServerTransport } from "../stdio-self.ts";

const pad = "x".repeat(Number(process.argv[2] ?? 0));
const t = new StdioServerTransport();
t.onmessage = (m) => {
  const id = (m as { id?: number }).id;
  if (id !== undefined) void t.send({ jsonrpc: "2.0", id, result: { pad } } as JsonRpcMessage).catch(() => {});
};
await t.start();
