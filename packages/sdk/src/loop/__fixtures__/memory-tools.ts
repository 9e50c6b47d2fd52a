/**
 * An in-memory ToolSet for loop tests. Each tool is a function; a string return is a successful text
 * result. Every call is recorded with its qualified name, arguments and context.
 */
import type { ToolCallContext, ToolCallOutcome, ToolDescriptor, ToolSet } from "../tools.ts";

/** One in-memory tool. */
export interface MemoryTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  run: (args: Record<string, unknown>, ctx: ToolCallContext) => string | ToolCallOutcome | Promise<string | ToolCallOutcome>;
}

/** A recorded call. */
export interface RecordedCall {
  name: string;
  args: Record<string, unknown>;
  ctx: ToolCallContext;
}

/** Build a ToolSet over in-memory tools. Unknown names are refused as the real ToolSet does. */
export function memoryToolSet(tools: MemoryTool[]): ToolSet & { calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  return {
    calls,
    async list(): Promise<ToolDescriptor[]> {
      return tools.map((t) => ({
        name: t.name,
        description: t.description || undefined,
        inputSchema: t.inputSchema ?? { type: "object" },
      }));
    },
    async call(name, args, ctx) {
      calls.push({ name, args, ctx });
      const tool = tools.find((t) => t.name === name);
      if (!tool) return { text: `no tool ${name}`, isError: true };
      const out = await tool.run(args, ctx);
      return typeof out === "string" ? { text: out, isError: false } : out;
    },
  };
}

/** A barrier `n` parties must reach before any passes: proves calls overlap without timing. */
export function barrier(n: number): { arrive: () => Promise<void>; arrived: () => number } {
  let count = 0;
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return {
    arrive() {
      if (++count >= n) open();
      return opened;
    },
    arrived: () => count,
  };
}
