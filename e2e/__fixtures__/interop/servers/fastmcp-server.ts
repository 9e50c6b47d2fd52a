/** A tiny server on fastmcp (`add`): stdio, or Streamable HTTP with `--http` (port 0, reported by the preload). */
import { FastMCP } from "fastmcp";
import { z } from "zod";

const server = new FastMCP({ name: "fastmcp-interop", version: "1.0.0" });
server.addTool({
  name: "add",
  description: "Add two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => String(a + b),
});
await server.start(
  process.argv.includes("--http")
    ? { transportType: "httpStream", httpStream: { port: 0, host: "127.0.0.1" } }
    : { transportType: "stdio" },
);
