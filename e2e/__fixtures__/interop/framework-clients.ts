/**
 * Agent frameworks' MCP clients, wrapped like the SDK clients in `clients.ts`: LangChain's
 * `MultiServerMCPClient` (`@langchain/mcp-adapters`, the official v1 SDK client inside, tools turned into
 * LangChain tools) and Mastra's `MCPClient` (`@mastra/mcp`, the v2 SDK client inside, 2026-07-28 by default).
 * What each reports counts: the SDK client's `onerror` under both (LangChain logs through `debug` only, Mastra
 * sets no callback), and the Mastra logger's warnings and errors.
 */
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { MCPClient } from "@mastra/mcp";
import type { InteropClient, Target } from "./clients.ts";

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : (content as { type: string; text?: string }[]).map((c) => (c.type === "text" ? c.text : "")).join("");

const statusOf = (contents: unknown): Record<string, unknown> => JSON.parse((contents as { text?: string }[])[0]?.text ?? "null");

/** LangChain's MultiServerMCPClient: agentd as its one server, `agent.run` invoked as a LangChain tool. */
export const langchain: InteropClient = {
  name: "@langchain/mcp-adapters",
  version: "1.1.4",
  async connect(target: Target, errors: unknown[]) {
    const connection =
      target.kind === "http"
        ? { transport: "http" as const, url: target.url.href, automaticSSEFallback: false }
        : {
            transport: "stdio" as const,
            command: target.command,
            args: target.args,
            env: target.env,
            cwd: target.cwd,
            stderr: "ignore" as const,
          };
    const mcp = new MultiServerMCPClient({ mcpServers: { agentd: connection }, throwOnLoadError: true, onConnectionError: "throw" });
    const tools = await mcp.getTools();
    const client = await mcp.getClient("agentd");
    if (!client) throw new Error("MultiServerMCPClient did not connect to agentd");
    const previous = client.onerror;
    client.onerror = (e) => {
      errors.push(e);
      previous?.(e);
    };
    return {
      revision: (client.transport as { protocolVersion?: string } | undefined)?.protocolVersion,
      listToolNames: async () => (await mcp.getTools()).map((t) => t.name),
      async run(instruction) {
        const tool = tools.find((t) => t.name === "agent.run" || t.name.endsWith("__agent.run"));
        if (!tool) throw new Error(`no agent.run among ${tools.map((t) => t.name).join(", ")}`);
        // LangChain hands back a lone text block as itself, several as an array.
        const result = await tool.invoke({ instruction });
        return textOf(Array.isArray(result) || typeof result === "string" ? result : [result]);
      },
      readStatus: async () => statusOf(await mcp.readResource("agentd", "agent://status")),
      close: () => mcp.close(),
    };
  },
};

let mastraClients = 0;

/** Mastra's MCPClient: tools keyed `agentd_<name>`, resources through `client.resources`. */
export const mastra: InteropClient = {
  name: "@mastra/mcp",
  version: "2.0.0",
  async connect(target: Target, errors: unknown[]) {
    const server =
      target.kind === "http"
        ? { url: target.url, logger: onServerLog(errors) }
        : {
            command: target.command,
            args: target.args,
            env: target.env,
            cwd: target.cwd,
            stderr: "ignore" as const,
            logger: onServerLog(errors),
          };
    const mcp = new MCPClient({ id: `interop-${++mastraClients}`, servers: { agentd: server } });
    mcp.__setLogger(collectingLogger(errors) as never);
    const tools = await mcp.listTools();
    // Mastra sets no error callback on the v2 SDK client inside it, so transport errors vanish: hook that
    // client (a private field; fail loudly if it moves rather than count nothing).
    const inner = (mcp as unknown as { mcpClientsById: Map<string, { client?: { onerror?: (e: unknown) => void } }> }).mcpClientsById.get(
      "agentd",
    )?.client;
    if (!inner) throw new Error("@mastra/mcp: the SDK client inside MCPClient was not found (mcpClientsById.agentd.client)");
    const previous = inner.onerror;
    inner.onerror = (e) => {
      errors.push(e);
      previous?.(e);
    };
    return {
      revision: mcp.getServerProtocolVersions().agentd,
      listToolNames: async () => Object.keys(await mcp.listTools()).map((k) => k.replace(/^agentd_/, "")),
      async run(instruction) {
        const tool = tools["agentd_agent.run"];
        if (!tool?.execute) throw new Error(`no agentd_agent.run among ${Object.keys(tools).join(", ")}`);
        // Mastra hands back agent.run's structured content (its output schema) when the result has one.
        const result = (await tool.execute({ instruction }, {} as never)) as { content?: unknown; text?: string };
        return result.content !== undefined ? textOf(result.content) : String(result.text);
      },
      readStatus: async () => statusOf((await mcp.resources.read("agentd", "agent://status")).contents),
      async subscribeStatus() {
        const updated = new Promise<void>((resolve) =>
          mcp.resources.onUpdated("agentd", ({ uri }: { uri: string }) => {
            if (uri === "agent://status") resolve();
          }),
        );
        await mcp.resources.subscribe("agentd", "agent://status");
        return { updated };
      },
      close: () => mcp.disconnect(),
    };
  },
};

/** Server-side log messages at warning or worse count as errors. */
function onServerLog(errors: unknown[]) {
  return (m: { level: string; message: string }) => {
    if (["warning", "error", "critical", "alert", "emergency"].includes(m.level)) errors.push(m);
  };
}

/** A Mastra logger that records warnings and errors (Mastra reports transport trouble there). */
function collectingLogger(errors: unknown[]) {
  const noop = () => {};
  return {
    debug: noop,
    info: noop,
    warn: (...args: unknown[]) => errors.push(args),
    error: (...args: unknown[]) => errors.push(args),
    trackException: (e: unknown) => errors.push(e),
    getTransports: () => new Map(),
    listLogs: async () => ({ logs: [], total: 0, page: 1, perPage: 0, hasMore: false }),
    listLogsByRunId: async () => ({ logs: [], total: 0, page: 1, perPage: 0, hasMore: false }),
    child: () => collectingLogger(errors),
  };
}
