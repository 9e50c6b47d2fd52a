/**
 * The benchmarks' `echo` tool, as agentd's `McpServer` serves it in every subject that measures agentd's own
 * server (stdio, HTTP, in process): one definition, so the subjects compare the same work. Plain data and a
 * function, so an aid that loads another checkout's `McpServer` can register it too.
 */

/** The tool's definition: one required string argument. */
export const ECHO_TOOL = {
  name: "echo",
  description: "Returns its text argument.",
  inputSchema: { type: "object" as const, properties: { text: { type: "string" } }, required: ["text"] },
};

/** The tool's handler: its text argument back, as one text block. */
export const echo = (args: Record<string, unknown>) => ({ content: [{ type: "text" as const, text: String(args.text) }] });
