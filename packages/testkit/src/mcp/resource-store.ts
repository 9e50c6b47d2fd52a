/**
 * The fake server's fixed resources and their current contents. A resource's content can change while
 * clients are subscribed; reads always return the latest.
 */
import type { McpServer, Registered } from "@agentd/sdk/mcp";
import type { ReadResourceResult, Resource } from "@agentd/sdk/wire";
import type { FakeResourceContent, FakeResourceSpec } from "./types.ts";

interface Entry {
  handle: Registered<Resource>;
  content: { text: string } | { blob: string };
  mimeType?: string;
}

/** Fixed resources registered on one `McpServer`. */
export class ResourceStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly server: McpServer) {}

  /** Register a resource from its spec. */
  add(spec: FakeResourceSpec): void {
    const definition: Resource = { uri: spec.uri, name: spec.name ?? spec.uri };
    if (spec.title !== undefined) definition.title = spec.title;
    if (spec.description !== undefined) definition.description = spec.description;
    if (spec.mimeType !== undefined) definition.mimeType = spec.mimeType;
    const content = spec.blob !== undefined ? { blob: spec.blob } : { text: spec.text ?? "" };
    const entry = { content, mimeType: spec.mimeType } as Entry;
    entry.handle = this.server.resource(definition, (uri) => this.read(uri));
    this.entries.set(spec.uri, entry);
  }

  /** Change a resource's content, registering it first when it is new. */
  set(uri: string, content: FakeResourceContent): void {
    const next = typeof content === "string" ? { text: content } : content;
    const entry = this.entries.get(uri);
    if (!entry) {
      this.add({ uri, mimeType: next.mimeType, ...("blob" in next ? { blob: next.blob } : { text: next.text }) });
      return;
    }
    entry.content = "blob" in next ? { blob: next.blob } : { text: next.text };
    if (next.mimeType !== undefined && next.mimeType !== entry.mimeType) {
      entry.mimeType = next.mimeType;
      entry.handle.update({ mimeType: next.mimeType });
    }
  }

  /** Unregister a resource. */
  remove(uri: string): void {
    this.entries.get(uri)?.handle.remove();
    this.entries.delete(uri);
  }

  private read(uri: string): ReadResourceResult {
    const entry = this.entries.get(uri);
    if (!entry) return { contents: [] };
    const contents = { uri, mimeType: entry.mimeType, ...entry.content };
    return { contents: [contents] };
  }
}
