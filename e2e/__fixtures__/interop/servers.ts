/**
 * MCP servers agentd's authors did not write, as `mcpServers` entries for the interop tests: the reference
 * servers, servers built on fastmcp, mcp-framework, Mastra and Express with the official SDK. Each case names
 * a real tool, the `agentd mcp … call` arguments for it, the arguments the scripted model passes in a run, and
 * text the result must contain. HTTP servers run under the loopback preload (127.0.0.1, an ephemeral port).
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { REPO_ROOT } from "@agentd/test-support/cli-process";

const here = (name: string) => resolve(import.meta.dir, "servers", name);
const pkg = (path: string) => resolve(REPO_ROOT, "node_modules", path);

const EVERYTHING = pkg("@modelcontextprotocol/server-everything/dist/index.js");
const FILESYSTEM = pkg("@modelcontextprotocol/server-filesystem/dist/index.js");
const MEMORY = pkg("@modelcontextprotocol/server-memory/dist/index.js");
const THINKING = pkg("@modelcontextprotocol/server-sequential-thinking/dist/index.js");
const LOOPBACK = here("loopback-listen.ts");

/** One server under test. */
export interface ServerCase {
  name: string;
  /** The `mcpServers` entry; `dir` is the test's workspace, `started` collects processes the test must stop. */
  entry(dir: string, started: Subprocess[]): Promise<Record<string, unknown>>;
  tool: string;
  /** `agentd mcp peer call TOOL …` arguments. */
  callArgs: string[];
  /** The arguments the scripted model gives the tool in a run. */
  runArgs: Record<string, unknown>;
  /** Text the tool's result contains. */
  answer: string;
}

/** Start `bun --preload loopback-listen.ts FILE ARGS` and return its MCP URL once it listens. */
export async function startHttpServer(
  started: Subprocess[],
  file: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<string> {
  const proc = Bun.spawn([process.execPath, "--preload", LOOPBACK, file, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "", ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  started.push(proc);
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`${file} exited before listening: ${text.slice(-500)}`);
    text += decoder.decode(value, { stream: true });
    const port = text.match(/interop-listening (\d+)/)?.[1];
    if (port) {
      // Keep draining stderr so a chatty server never blocks on a full pipe.
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return `http://127.0.0.1:${port}/mcp`;
    }
  }
}

const bun = (file: string, args: string[] = []) => ({ command: process.execPath, args: [file, ...args] });
const add = { tool: "add", callArgs: ["-a", "a=2", "-a", "b=3"], runArgs: { a: 2, b: 3 }, answer: "5" };

/** Every server case, stdio and HTTP. */
export const SERVER_CASES: ServerCase[] = [
  {
    name: "server-everything 2026.8.31 (stdio)",
    entry: async () => bun(EVERYTHING),
    tool: "echo",
    callArgs: ["-a", "message=hi there"],
    runArgs: { message: "hi there" },
    answer: "Echo: hi there",
  },
  {
    name: "server-everything 2026.8.31 (HTTP)",
    entry: async (_dir, started) => ({ url: await startHttpServer(started, EVERYTHING, ["streamableHttp"]) }),
    tool: "echo",
    callArgs: ["-a", "message=hi there"],
    runArgs: { message: "hi there" },
    answer: "Echo: hi there",
  },
  {
    name: "server-filesystem 2026.8.31 (stdio)",
    async entry(dir) {
      writeFileSync(join(dir, "note.txt"), "the filesystem server read this");
      return bun(FILESYSTEM, [dir]);
    },
    tool: "read_text_file",
    callArgs: ["-a", "path=note.txt"],
    runArgs: { path: "note.txt" },
    answer: "the filesystem server read this",
  },
  {
    name: "server-memory 2026.8.31 (stdio)",
    entry: async (dir) => ({ ...bun(MEMORY), env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } }),
    tool: "read_graph",
    callArgs: [],
    runArgs: {},
    answer: '"relations"',
  },
  {
    name: "server-sequential-thinking 2026.8.31 (stdio)",
    entry: async () => bun(THINKING),
    tool: "sequentialthinking",
    callArgs: ["-a", "thought=first step", "-a", "nextThoughtNeeded=false", "-a", "thoughtNumber=1", "-a", "totalThoughts=1"],
    runArgs: { thought: "first step", nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 },
    answer: "thoughtHistoryLength",
  },
  { name: "fastmcp 4.20.16 (stdio)", entry: async () => bun(here("fastmcp-server.ts")), ...add },
  {
    name: "fastmcp 4.20.16 (HTTP)",
    entry: async (_dir, started) => ({ url: await startHttpServer(started, here("fastmcp-server.ts"), ["--http"]) }),
    ...add,
  },
  { name: "mcp-framework 0.2.22 (stdio)", entry: async () => bun(here("mcp-framework-server.ts")), ...add },
  {
    name: "mcp-framework 0.2.22 (HTTP)",
    entry: async (_dir, started) => ({ url: await startHttpServer(started, here("mcp-framework-server.ts"), ["--http"]) }),
    ...add,
  },
  {
    name: "Express 5.1.0 with the official SDK 1.32.2 (HTTP)",
    entry: async (_dir, started) => ({ url: await startHttpServer(started, here("express-sdk-server.ts")) }),
    ...add,
  },
  { name: "Mastra MCPServer 2.0.0, 2026-07-28 only (stdio)", entry: async () => bun(here("mastra-server.ts")), ...add },
  {
    name: "Mastra MCPServer 2.0.0, 2026-07-28 only (HTTP)",
    entry: async (_dir, started) => ({ url: await startHttpServer(started, here("mastra-server.ts"), ["--http"]) }),
    ...add,
  },
];
