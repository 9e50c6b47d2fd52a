/**
 * What an {@link McpServer} offers: tools, resources, resource templates and prompts, each with its
 * handler. Shared by every session of the server. Adding, updating or removing an entry emits `changed`
 * with its list, which the server turns into `notifications/<list>/list_changed`.
 */
import { AgentdError } from "../../wire/errors.ts";
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool } from "../../wire/index.ts";
import { Emitter } from "../protocol/emitter.ts";
import type { ServerContext } from "./session.ts";
import { compileUriTemplate, type UriTemplate } from "./uri-template.ts";

/** A tool as registered: `inputSchema` defaults to `{ type: "object" }`. */
export type ToolDefinition = { [K in keyof Tool as Exclude<K, "inputSchema">]: Tool[K] } & { inputSchema?: Tool["inputSchema"] };
/** Runs a tool. Throw `McpError` for a protocol error; any other throw becomes an `isError` result. */
export type ToolHandler = (args: Record<string, unknown>, ctx: ServerContext) => CallToolResult | Promise<CallToolResult>;
/** Reads a fixed resource. */
export type ResourceReader = (uri: string, ctx: ServerContext) => ReadResourceResult | Promise<ReadResourceResult>;
/** Reads a resource matched by a template, with the template's variables. */
export type TemplateReader = (
  uri: string,
  variables: Record<string, string>,
  ctx: ServerContext,
) => ReadResourceResult | Promise<ReadResourceResult>;
/** Builds a prompt's messages from its arguments. */
export type PromptGetter = (args: Record<string, string>, ctx: ServerContext) => GetPromptResult | Promise<GetPromptResult>;
/** Suggests values for one argument (at most 100 are sent). */
export type Completer = (value: string, context: { arguments: Record<string, string> }) => string[] | Promise<string[]>;
/** Completers by argument (prompt argument or template variable) name. */
export type Completers = Record<string, Completer>;

/** Options of a tool registration. */
export interface ToolOptions {
  /** Check `structuredContent` against `outputSchema` before answering (default true). */
  validateOutput?: boolean;
}

/** A handle on one registration. */
export interface Registered<D> {
  /** The current definition. */
  readonly definition: D;
  /** Change the definition (the key — name or URI — may change too); emits list_changed. */
  update(changes: Partial<D>): void;
  /** Remove the entry; emits list_changed. */
  remove(): void;
}

export interface ToolEntry {
  definition: Tool;
  handler: ToolHandler;
  options: ToolOptions;
}
export interface ResourceEntry {
  definition: Resource;
  read: ResourceReader;
}
export interface TemplateEntry {
  definition: ResourceTemplate;
  compiled: UriTemplate;
  read: TemplateReader;
  complete: Completers;
}
export interface PromptEntry {
  definition: Prompt;
  get: PromptGetter;
  complete: Completers;
}

/** The lists a client can watch. */
export type ListKind = "tools" | "resources" | "prompts";

/** Everything a server offers. */
export class Registry {
  readonly tools = new Map<string, ToolEntry>();
  readonly resources = new Map<string, ResourceEntry>();
  readonly templates = new Map<string, TemplateEntry>();
  readonly prompts = new Map<string, PromptEntry>();
  readonly events = new Emitter<{ changed: ListKind }>();

  addTool(definition: ToolDefinition, handler: ToolHandler, options: ToolOptions = {}): Registered<Tool> {
    const def: Tool = { ...definition, inputSchema: definition.inputSchema ?? { type: "object" } };
    return this.add(this.tools, "tools", "tool", def.name, { definition: def, handler, options }, (d) => d.name);
  }

  addResource(definition: Resource, read: ResourceReader): Registered<Resource> {
    return this.add(this.resources, "resources", "resource", definition.uri, { definition, read }, (d) => d.uri);
  }

  addTemplate(definition: ResourceTemplate, read: TemplateReader, complete: Completers = {}): Registered<ResourceTemplate> {
    const entry: TemplateEntry = { definition, compiled: compileUriTemplate(definition.uriTemplate), read, complete };
    const handle = this.add<ResourceTemplate, TemplateEntry>(
      this.templates,
      "resources",
      "resource template",
      definition.uriTemplate,
      entry,
      (d) => d.uriTemplate,
    );
    return {
      get definition() {
        return handle.definition;
      },
      update: (changes) => {
        if (changes.uriTemplate !== undefined) entry.compiled = compileUriTemplate(changes.uriTemplate);
        handle.update(changes);
      },
      remove: () => handle.remove(),
    };
  }

  addPrompt(definition: Prompt, get: PromptGetter, complete: Completers = {}): Registered<Prompt> {
    return this.add(this.prompts, "prompts", "prompt", definition.name, { definition, get, complete }, (d) => d.name);
  }

  /** Whether anything of each kind is registered. */
  features(): { tools: boolean; resources: boolean; prompts: boolean; completions: boolean } {
    const completers = (m: Map<string, { complete: Completers }>) => [...m.values()].some((e) => Object.keys(e.complete).length > 0);
    return {
      tools: this.tools.size > 0,
      resources: this.resources.size > 0 || this.templates.size > 0,
      prompts: this.prompts.size > 0,
      completions: completers(this.prompts) || completers(this.templates),
    };
  }

  private add<D, E extends { definition: D }>(
    map: Map<string, E>,
    list: ListKind,
    noun: string,
    key: string,
    entry: E,
    keyOf: (d: D) => string,
  ): Registered<D> {
    if (map.has(key)) throw new AgentdError("E_USAGE", `${noun} "${key}" is already registered; update or remove it first`);
    map.set(key, entry);
    this.events.emit("changed", list);
    let current = key;
    let removed = false;
    return {
      get definition() {
        return entry.definition;
      },
      update: (changes) => {
        if (removed) throw new AgentdError("E_USAGE", `${noun} "${current}" was removed`);
        const next = { ...entry.definition, ...changes } as D;
        const nextKey = keyOf(next);
        if (nextKey !== current && map.has(nextKey)) throw new AgentdError("E_USAGE", `${noun} "${nextKey}" is already registered`);
        entry.definition = next;
        if (nextKey !== current) {
          map.delete(current);
          map.set(nextKey, entry);
          current = nextKey;
        }
        this.events.emit("changed", list);
      },
      remove: () => {
        if (removed) return;
        removed = true;
        map.delete(current);
        this.events.emit("changed", list);
      },
    };
  }
}
