/**
 * A typed client of any MCP store server (ours, `agentd store`, or another with the same five tools),
 * over an already connected {@link McpClient}. A tool error becomes an `E_STORE` throw; a failed
 * compare-and-set is data, not an error.
 */
import type { McpClient } from "../mcp/client/client.ts";
import { AgentdError } from "../wire/errors.ts";
import { keyOfDocumentUri, storeDocumentUri } from "./store-server.ts";
import type { CompareAndSetResult, ListedKey, StoredDocument } from "./types.ts";

/** Store operations through MCP tool calls. */
export class StoreClient {
  constructor(readonly mcp: McpClient) {}

  async get(key: string): Promise<StoredDocument | undefined> {
    const r = (await this.call("get", { key })) as { found: boolean; version: number; value?: unknown };
    return r.found ? { key, version: r.version, value: r.value } : undefined;
  }

  async put(key: string, value: unknown): Promise<number> {
    return ((await this.call("put", { key, value })) as { version: number }).version;
  }

  async compareAndSet(key: string, expectedVersion: number, value: unknown): Promise<CompareAndSetResult> {
    const r = (await this.call("compare_and_set", { key, expectedVersion, value })) as CompareAndSetResult;
    return r.ok ? { ok: true, version: r.version } : { ok: false, version: r.version, ...("value" in r ? { value: r.value } : {}) };
  }

  async delete(key: string, expectedVersion?: number): Promise<boolean> {
    return ((await this.call("delete", { key, ...(expectedVersion === undefined ? {} : { expectedVersion }) })) as { deleted: boolean })
      .deleted;
  }

  async list(prefix = ""): Promise<ListedKey[]> {
    return ((await this.call("list", { prefix })) as { keys: ListedKey[] }).keys;
  }

  /** Subscribe to a key's document; `onChange` hears its key on every write or delete. Resolves to the unsubscribe. */
  async watch(key: string, onChange: (key: string) => void): Promise<() => Promise<void>> {
    const uri = storeDocumentUri(key);
    const off = this.mcp.on("resourceUpdated", (e) => {
      if (e.uri === uri) onChange(keyOfDocumentUri(e.uri) as string);
    });
    await this.mcp.subscribe(uri);
    return async () => {
      off();
      await this.mcp.unsubscribe(uri).catch(() => {});
    };
  }

  private async call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await this.mcp.callTool(tool, args);
    const text = r.content?.find((c) => c.type === "text") as { text?: string } | undefined;
    if (r.isError) throw new AgentdError("E_STORE", `store ${tool} failed: ${text?.text ?? "no message"}`);
    const structured = r.structuredContent ?? (text?.text ? (JSON.parse(text.text) as Record<string, unknown>) : undefined);
    if (!structured) throw new AgentdError("E_STORE", `store ${tool} answered without a result: is this an MCP store server?`);
    return structured;
  }
}
