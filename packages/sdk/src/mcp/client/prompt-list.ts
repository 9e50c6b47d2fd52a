/**
 * A server's prompt list as the client last saw it, listed again only after the server said it changed
 * (`notifications/prompts/list_changed`, prompts spec "List Changed Notification"). A person filling in a
 * prompt's arguments takes a while; the list read before `prompts/get` is the server's current one.
 */
import type { Prompt } from "../../wire/index.ts";
import type { RequestOptions } from "../protocol/types.ts";

/** What a prompt list needs of a client (`McpClient` and `ManagedMcpClient` both fit). */
export interface PromptSource {
  listPrompts(options?: RequestOptions): Promise<Prompt[]>;
  on(event: "promptsListChanged", listener: () => void): () => void;
}

/** One server's prompts, refreshed when the server notifies a change. */
export class PromptList {
  private current: Promise<Prompt[]> | undefined;
  private readonly off: () => void;
  private listed = 0;

  constructor(private readonly source: PromptSource) {
    this.off = source.on("promptsListChanged", () => {
      this.current = undefined;
    });
  }

  /** How many times the list was fetched (once, plus once per change notified and then read). */
  get listings(): number {
    return this.listed;
  }

  /** The prompts: the last listing, or a new one after a change (or a failed listing). */
  prompts(options: RequestOptions = {}): Promise<Prompt[]> {
    if (this.current) return this.current;
    this.listed++;
    const listing = this.source.listPrompts(options);
    this.current = listing;
    listing.catch(() => {
      if (this.current === listing) this.current = undefined;
    });
    return listing;
  }

  /** The prompt named `name`, if the server offers it now. */
  async find(name: string, options: RequestOptions = {}): Promise<Prompt | undefined> {
    return (await this.prompts(options)).find((p) => p.name === name);
  }

  /** Stop following the server's notifications. */
  close(): void {
    this.off();
  }
}
