/** A tiny server on mcp-framework (`add`, a class-based tool): stdio, or its HTTP stream transport with `--http`. */
import { realpathSync } from "node:fs";
import { MCPServer, MCPTool } from "mcp-framework";

// mcp-framework checks schemas against its own zod 3 (`instanceof`): take that copy (found from its real
// path in the install store), not the workspace's zod 4.
const { z } = await import(Bun.resolveSync("zod", realpathSync(Bun.resolveSync("mcp-framework", import.meta.dir))));

const schema = z.object({ a: z.number().describe("first addend"), b: z.number().describe("second addend") });

class AddTool extends MCPTool {
  name = "add";
  description = "Add two numbers";
  schema = schema;
  async execute(input: { a: number; b: number }) {
    return String(input.a + input.b);
  }
}

const server = new MCPServer({
  name: "mcp-framework-interop",
  version: "1.0.0",
  basePath: import.meta.dir,
  transport: process.argv.includes("--http") ? { type: "http-stream", options: { port: 0, host: "127.0.0.1" } } : { type: "stdio" },
});
server.addTool(AddTool);
await server.start();
