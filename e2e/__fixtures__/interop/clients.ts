/**
 * MCP clients that agentd's authors did not write, each wrapped the same way for the interop tests: connect
 * to `agentd serve` over HTTP or stdio, list tools, call `agent.run`, read `agent://status`, and count the
 * transport errors the client itself reports (parse errors of SSE events, failed streams). A client that
 * reports an error while every call still succeeds counts: users see those errors in their logs.
 */
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport as AiSdkStdio } from "@ai-sdk/mcp/mcp-stdio";
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from "@modelcontextprotocol/client";
import { StdioClientTransport as V2Stdio } from "@modelcontextprotocol/client/stdio";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { ResourceUpdatedNotificationSchema as SdkUpdated } from "@modelcontextprotocol/sdk/types.js";
import { StdioClientTransport as SdkStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as SdkHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as OldClient } from "mcp-sdk-1-12/client/index.js";
import { ResourceUpdatedNotificationSchema as OldUpdated } from "mcp-sdk-1-12/types.js";
import { StdioClientTransport as OldStdio } from "mcp-sdk-1-12/client/stdio.js";
import { StreamableHTTPClientTransport as OldHttp } from "mcp-sdk-1-12/client/streamableHttp.js";
import { MCPServerStdio as AgentsStdio, MCPServerStreamableHttp as AgentsHttp } from "@openai/agents";

/** Where a client connects: agentd's HTTP endpoint, or a command it spawns (stdio). */
export type Target =
  | { kind: "http"; url: URL }
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd: string };

/** One connected client, reduced to what the interop tests do with every client. */
export interface InteropSession {
  /** The protocol revision the client ended up speaking, when it says. */
  readonly revision: string | undefined;
  listToolNames(): Promise<string[]>;
  /** Call `agent.run` and return the text of its result. */
  run(instruction: string): Promise<string>;
  /** The parsed JSON of `agent://status`. */
  readStatus(): Promise<Record<string, unknown>>;
  /**
   * Subscribe to `agent://status`, where the client can: resolves once subscribed, with a promise of the
   * next `notifications/resources/updated` for it (wrapped: an async function would wait for it).
   */
  subscribeStatus?(): Promise<{ updated: Promise<void> }>;
  /** Each call reaches a new agentd (a CLI that spawns its stdio server per call): no state spans calls. */
  readonly oneProcessPerCall?: boolean;
  close(): Promise<void>;
}

/** A client under test: its package and version, and how to connect it. */
export interface InteropClient {
  name: string;
  version: string;
  /** The client reaches servers by URL only (a bridge such as mcp-remote). */
  httpOnly?: boolean;
  connect(target: Target, errors: unknown[]): Promise<InteropSession>;
}

const textOf = (content: unknown): string =>
  (content as { type: string; text?: string }[]).map((c) => (c.type === "text" ? c.text : "")).join("");

const statusOf = (contents: unknown): Record<string, unknown> => {
  const first = (contents as { text?: string }[])[0];
  return JSON.parse(first?.text ?? "null");
};

/** The official SDK's v1 line (1.32 and the old 1.12 client share one API). */
function sdkV1(name: string, version: string, lib: { Client: any; Http: any; Stdio: any; Updated: any }): InteropClient {
  return {
    name,
    version,
    async connect(target, errors) {
      const client = new lib.Client({ name: `interop-${name}`, version });
      client.onerror = (e: unknown) => errors.push(e);
      const transport =
        target.kind === "http"
          ? new lib.Http(target.url)
          : new lib.Stdio({ command: target.command, args: target.args, env: target.env, cwd: target.cwd, stderr: "ignore" });
      let revision: string | undefined;
      const setVersion = transport.setProtocolVersion?.bind(transport);
      transport.setProtocolVersion = (v: string) => {
        revision = v;
        setVersion?.(v);
      };
      await client.connect(transport);
      return {
        get revision() {
          return revision;
        },
        listToolNames: async () => (await client.listTools()).tools.map((t: { name: string }) => t.name),
        run: async (instruction) => textOf((await client.callTool({ name: "agent.run", arguments: { instruction } })).content),
        readStatus: async () => statusOf((await client.readResource({ uri: "agent://status" })).contents),
        async subscribeStatus() {
          const updated = new Promise<void>((resolve) =>
            client.setNotificationHandler(lib.Updated, (n: { params: { uri: string } }) => {
              if (n.params.uri === "agent://status") resolve();
            }),
          );
          await client.subscribeResource({ uri: "agent://status" });
          return { updated };
        },
        close: () => client.close(),
      };
    },
  };
}

/** The official v2 SDK client, negotiating 2026-07-28 (`auto`). */
const v2: InteropClient = {
  name: "@modelcontextprotocol/client",
  version: "2.4.0",
  async connect(target, errors) {
    const client = new V2Client({ name: "interop-v2", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
    client.onerror = (e) => errors.push(e);
    const transport =
      target.kind === "http"
        ? new V2Http(target.url)
        : new V2Stdio({ command: target.command, args: target.args, env: target.env, cwd: target.cwd, stderr: "ignore" });
    await client.connect(transport);
    return {
      revision: client.getNegotiatedProtocolVersion(),
      listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
      run: async (instruction) => textOf((await client.callTool({ name: "agent.run", arguments: { instruction } })).content),
      readStatus: async () => statusOf((await client.readResource({ uri: "agent://status" })).contents),
      async subscribeStatus() {
        const updated = new Promise<void>((resolve) =>
          client.setNotificationHandler("notifications/resources/updated", (n) => {
            if (n.params.uri === "agent://status") resolve();
          }),
        );
        const subscription = await client.listen({ resourceSubscriptions: ["agent://status"] });
        // The listen stream ends with the update seen (before the client closes).
        return { updated: updated.then(() => subscription.close()) };
      },
      close: () => client.close(),
    };
  },
};

/** The Vercel AI SDK's MCP client (chooses 2026-07-28 against a server that offers it). */
const aiSdk: InteropClient = {
  name: "@ai-sdk/mcp",
  version: "2.0.99",
  async connect(target, errors) {
    const client = await createMCPClient({
      transport:
        target.kind === "http"
          ? { type: "http", url: target.url.href }
          : new AiSdkStdio({ command: target.command, args: target.args, env: target.env, cwd: target.cwd, stderr: "ignore" }),
      onUncaughtError: (e) => errors.push(e),
    });
    return {
      revision: (client.initializeResult as { protocolVersion?: string }).protocolVersion,
      listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
      run: async (instruction) => textOf((await client.callTool({ name: "agent.run", arguments: { instruction } })).content),
      readStatus: async () => statusOf((await client.readResource({ uri: "agent://status" })).contents),
      close: () => client.close(),
    };
  },
};

/** The OpenAI Agents SDK's MCP servers (its own client inside); it logs transport trouble at error/warn. */
const openaiAgents: InteropClient = {
  name: "@openai/agents",
  version: "0.20.0",
  async connect(target, errors) {
    const logger = {
      namespace: "interop",
      debug: () => {},
      info: () => {},
      warn: (...args: unknown[]) => errors.push(args),
      error: (...args: unknown[]) => errors.push(args),
      dontLogModelData: true,
      dontLogToolData: true,
    };
    const server =
      target.kind === "http"
        ? new AgentsHttp({ url: target.url.href, name: "agentd", logger: logger as never })
        : new AgentsStdio({
            command: target.command,
            args: target.args,
            env: target.env,
            cwd: target.cwd,
            name: "agentd",
            logger: logger as never,
          });
    await server.connect();
    return {
      revision: undefined,
      listToolNames: async () => (await server.listTools()).map((t) => t.name),
      run: async (instruction) => textOf(await server.callTool("agent.run", { instruction })),
      readStatus: async () => statusOf((await server.readResource("agent://status")).contents),
      close: () => server.close(),
    };
  },
};

/** Every client the interop tests run. */
export const INTEROP_CLIENTS: InteropClient[] = [
  sdkV1("@modelcontextprotocol/sdk", "1.32.2", { Client: SdkClient, Http: SdkHttp, Stdio: SdkStdio, Updated: SdkUpdated }),
  sdkV1("@modelcontextprotocol/sdk (1.12 line)", "1.12.3", { Client: OldClient, Http: OldHttp, Stdio: OldStdio, Updated: OldUpdated }),
  v2,
  aiSdk,
  openaiAgents,
];
