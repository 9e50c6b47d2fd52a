/**
 * The store as an MCP server (`agentd store`): tools `get`, `put`, `compare_and_set`, `delete`, `list` on
 * versioned JSON documents, and each document as the resource `store://doc/<key>`, which a client can
 * subscribe to (`notifications/resources/updated` when it is written or deleted). Any MCP server with
 * these five tools can stand in for it (see docs/durability.md).
 */
import { McpServer, type McpServerOptions } from "../mcp/server/server.ts";
import type { CallToolResult } from "../wire/index.ts";
import { checkKey } from "./key.ts";
import type { StoreBackend } from "./types.ts";

/** The URI of a key's document resource. */
export const storeDocumentUri = (key: string): string => `store://doc/${key}`;
const URI_PREFIX = "store://doc/";

const KEY_SCHEMA = { type: "string", description: "Document key: 1-200 of A-Z a-z 0-9 . _ : @ / -" } as const;
const VERSION_SCHEMA = { type: "integer", minimum: 0 } as const;

function result(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
}

function versionArg(v: unknown, name: string): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw new Error(`${name} must be an integer ≥ 0`);
  return v;
}

/** Options of {@link createStoreServer}. */
export interface StoreServerOptions extends Pick<McpServerOptions, "logger"> {
  /** Server version in the initialize result. */
  version?: string;
}

/** An MCP server over `backend`; closing the server does not close the backend. */
export function createStoreServer(backend: StoreBackend, options: StoreServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: "agentd-store", version: options.version ?? "0.1.0" },
    {
      logger: options.logger,
      instructions: "Versioned JSON documents. compare_and_set writes only at the version you read (0: only if absent).",
    },
  );
  registerDocumentTools(server, backend);
  registerDocumentResource(server, backend);
  const unwatch = backend.watch((key) => void server.notifyResourceUpdated(storeDocumentUri(key)));
  const close = server.close.bind(server);
  server.close = async () => {
    unwatch();
    await close();
  };
  return server;
}

/** The five document tools, in the order they are listed: `get`, `put`, `compare_and_set`, `delete`, `list`. */
function registerDocumentTools(server: McpServer, backend: StoreBackend): void {
  server.tool(
    {
      name: "get",
      description: "Read a document: its value and version (found: false when absent).",
      inputSchema: { type: "object", properties: { key: KEY_SCHEMA }, required: ["key"] },
    },
    async (args) => {
      const doc = await backend.get(checkKey(args.key));
      return result(
        doc ? { key: doc.key, found: true, version: doc.version, value: doc.value } : { key: args.key as string, found: false, version: 0 },
      );
    },
  );
  server.tool(
    {
      name: "put",
      description: "Write a document unconditionally; returns its new version.",
      inputSchema: { type: "object", properties: { key: KEY_SCHEMA, value: {} }, required: ["key", "value"] },
    },
    async (args) => result({ key: args.key as string, version: await backend.put(checkKey(args.key), args.value) }),
  );
  server.tool(
    {
      name: "compare_and_set",
      description:
        "Write a document only if its version is expectedVersion (0: only if absent). ok: false returns the current version and value.",
      inputSchema: {
        type: "object",
        properties: { key: KEY_SCHEMA, expectedVersion: VERSION_SCHEMA, value: {} },
        required: ["key", "expectedVersion", "value"],
      },
    },
    async (args) =>
      result({
        key: args.key as string,
        ...(await backend.compareAndSet(checkKey(args.key), versionArg(args.expectedVersion, "expectedVersion"), args.value)),
      }),
  );
  server.tool(
    {
      name: "delete",
      description: "Delete a document (only at expectedVersion, when given); deleted: false when absent or at another version.",
      inputSchema: { type: "object", properties: { key: KEY_SCHEMA, expectedVersion: VERSION_SCHEMA }, required: ["key"] },
    },
    async (args) => {
      const expected = args.expectedVersion === undefined ? undefined : versionArg(args.expectedVersion, "expectedVersion");
      return result({ key: args.key as string, deleted: await backend.delete(checkKey(args.key), expected) });
    },
  );
  server.tool(
    {
      name: "list",
      description: "Keys starting with prefix (default: all), sorted, with their versions.",
      inputSchema: { type: "object", properties: { prefix: { type: "string" } } },
    },
    async (args) => result({ keys: await backend.list(typeof args.prefix === "string" ? args.prefix : "") }),
  );
}

/** Each document as the resource `store://doc/<key>` (subscribable: writes and deletes notify). */
function registerDocumentResource(server: McpServer, backend: StoreBackend): void {
  server.resourceTemplate(
    {
      uriTemplate: `${URI_PREFIX}{+key}`,
      name: "document",
      description: "A stored document as JSON {key, version, value}; subscribe to hear of changes.",
      mimeType: "application/json",
    },
    async (uri, vars) => {
      const doc = await backend.get(checkKey(vars.key));
      const body = doc ? { key: doc.key, version: doc.version, value: doc.value } : { key: vars.key, version: 0 };
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(body) }] };
    },
  );
}

/** The key named by a `store://doc/<key>` URI, or undefined. */
export function keyOfDocumentUri(uri: string): string | undefined {
  return uri.startsWith(URI_PREFIX) ? uri.slice(URI_PREFIX.length) : undefined;
}
