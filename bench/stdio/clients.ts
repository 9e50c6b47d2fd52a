/**
 * The stdio clients compared, each connected to one server child: agentd's `McpClient` over
 * `StdioChildTransport`, the official SDK's and the v2 SDK's `Client` over their `StdioClientTransport`, and
 * the floor, which writes the request line to a raw echo child and reads the line back. The `-2026` kinds
 * probe with `server/discover` and must end up speaking MCP 2026-07-28 (checked, or the run fails).
 */
import { McpClient } from "@agentd/sdk/mcp";
import { StdioChildTransport } from "@agentd/sdk/transport";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as SdkStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as Sdk2Client } from "@modelcontextprotocol/client";
import { StdioClientTransport as Sdk2Stdio } from "@modelcontextprotocol/client/stdio";
import { join } from "node:path";
import { BENCH_DIR, BUN } from "../lib/proc.ts";

/** One connected client: `call()` makes one echo tools/call and checks the answer. */
export interface Caller {
  call(): Promise<void>;
  close(): Promise<void>;
}

export type ClientKind = "agentd" | "agentd-2026" | "sdk" | "sdk2" | "sdk2-2026" | "raw";
export type ServerKind = "agentd" | "sdk" | "sdk2" | "sdk2-dual" | "raw";

const SERVER_FILES: Record<ServerKind, string> = {
  agentd: "agentd-echo-server.ts",
  sdk: "sdk-echo-server.ts",
  sdk2: "sdk2-echo-server.ts",
  "sdk2-dual": "sdk2-dual-echo-server.ts",
  raw: "raw-echo.ts",
};

function expectStateless(version: string | undefined, who: string): void {
  if (version !== "2026-07-28") throw new Error(`${who} negotiated ${String(version)}, not 2026-07-28`);
}
/** The server child's command (it inherits the client's CPU affinity). */
const serverCommand = (s: ServerKind) => ({ command: BUN, args: [join(BENCH_DIR, "stdio", "servers", SERVER_FILES[s])] });

const ARGS = { text: "hello" };
const textOf = (r: { content?: unknown }) => (r.content as Array<{ text?: string }> | undefined)?.[0]?.text ?? "";
const check = (r: { content?: unknown }) => {
  if (textOf(r) !== "hello") throw new Error(`echo answered ${JSON.stringify(r).slice(0, 200)}`);
};

/** Connect a client of `client` kind to a fresh server child of `server` kind. */
export async function connect(client: ClientKind, server: ServerKind): Promise<Caller> {
  if (client === "raw" || server === "raw") return connectRaw();
  if (client === "agentd" || client === "agentd-2026") {
    const c = new McpClient({ name: "bench-client", version: "1.0.0" }, client === "agentd-2026" ? { versionNegotiation: "auto" } : {});
    await c.connect(new StdioChildTransport({ name: "bench", ...serverCommand(server) }));
    if (client === "agentd-2026") expectStateless(c.protocolVersion, "agentd client");
    return { call: async () => check(await c.callTool("echo", ARGS)), close: () => c.close() };
  }
  if (client === "sdk") {
    const c = new SdkClient({ name: "bench-client", version: "1.0.0" });
    await c.connect(new SdkStdio(serverCommand(server)));
    return {
      call: async () => check((await c.callTool({ name: "echo", arguments: ARGS })) as { content?: unknown }),
      close: () => c.close(),
    };
  }
  const c = new Sdk2Client(
    { name: "bench-client", version: "1.0.0" },
    client === "sdk2-2026" ? { versionNegotiation: { mode: "auto" } } : {},
  );
  await c.connect(new Sdk2Stdio(serverCommand(server)));
  if (client === "sdk2-2026") expectStateless(c.getNegotiatedProtocolVersion(), "v2 SDK client");
  return {
    call: async () => check((await c.callTool({ name: "echo", arguments: ARGS })) as { content?: unknown }),
    close: () => c.close(),
  };
}

/** The floor: JSON.stringify a tools/call, write it to a raw echo child, read the line back, JSON.parse it. */
async function connectRaw(): Promise<Caller> {
  const { command, args } = serverCommand("raw");
  const proc = Bun.spawn([command, ...args], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const waiting: Array<(line: string) => void> = [];
  let id = 0;
  void (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        waiting.shift()?.(line);
      }
    }
  })();
  return {
    call() {
      return new Promise<void>((resolve, reject) => {
        waiting.push((line) => {
          const m = JSON.parse(line) as { params?: { arguments?: { text?: string } } };
          if (m.params?.arguments?.text === "hello") resolve();
          else reject(new Error(`raw echo answered ${line.slice(0, 200)}`));
        });
        proc.stdin.write(
          `${JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "echo", arguments: ARGS } })}\n`,
        );
        proc.stdin.flush();
      });
    },
    async close() {
      proc.stdin.end();
      await proc.exited;
    },
  };
}
