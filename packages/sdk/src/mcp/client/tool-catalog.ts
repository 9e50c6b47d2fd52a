/**
 * The client's view of one server's tools: the last listing, which tools are offered (with tasks off, those
 * that require tasks), and the check of `structuredContent` against a tool's `outputSchema` (tools spec:
 * clients SHOULD validate structured results; a mismatch is a tool-domain error, an observation for the
 * model, not a crash).
 */
import { validateJsonSchema } from "../../_internal/json-schema.ts";
import type { Logger } from "../../log.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { CallToolResult, ServerCapabilities, Tool } from "../../wire/index.ts";
import { toolAvailability, type CapabilityConfig } from "../capabilities.ts";
import { paramHeaders, type ParamHeader, type ParamHeaders } from "../../wire/param-headers.ts";

const NO_PARAMS: ParamHeaders = { ok: true, headers: [] };

/** A listed tool and whether it is offered. */
interface Entry {
  tool: Tool;
  availability: ReturnType<typeof toolAvailability>;
  /** The tool's `x-mcp-header` parameters (stateless servers; none: empty). */
  paramHeaders: readonly ParamHeader[];
}

/** The tools of one server as last listed. */
export class ToolCatalog {
  private entries = new Map<string, Entry>();
  private fresh = false;
  private readonly warned = new Set<string>();

  constructor(
    private readonly config: CapabilityConfig,
    private readonly logger: Logger,
  ) {}

  /** Whether the catalog reflects the server's current list (false before the first listing and after list_changed). */
  get isFresh(): boolean {
    return this.fresh;
  }

  /** The list changed on the server: the next call re-lists. */
  invalidate(): void {
    this.fresh = false;
  }

  /**
   * Record a full listing; returns the tools offered to callers. With `mirrorParams` (a stateless server) a
   * tool whose `x-mcp-header` annotations break the spec's rules is not offered (transport spec: a client
   * "MUST reject tool definitions" with an invalid annotation, and exclude them from the list).
   */
  update(tools: readonly Tool[], server: ServerCapabilities, mirrorParams = false): Tool[] {
    const next = new Map<string, Entry>();
    const offered: Tool[] = [];
    for (const tool of tools) {
      let availability = toolAvailability(this.config, server, tool);
      const declared = mirrorParams ? paramHeaders(tool.inputSchema) : NO_PARAMS;
      if (!declared.ok && availability.offered)
        availability = { offered: false, reason: `invalid x-mcp-header annotation: ${declared.reason}` };
      next.set(tool.name, { tool, availability, paramHeaders: declared.ok ? declared.headers : [] });
      if (availability.offered) offered.push(tool);
      else if (!this.warned.has(tool.name)) {
        this.warned.add(tool.name);
        this.logger.warn("mcp.tool_unavailable", { tool: tool.name, reason: availability.reason });
      }
    }
    this.entries = next;
    this.fresh = true;
    return offered;
  }

  /** The entry of `name`, if listed. */
  get(name: string): Entry | undefined {
    return this.entries.get(name);
  }

  /** The entry of `name` for a call (undefined when not listed: called blind); `E_CAPABILITY` when it is not offered. */
  forCall(name: string): Entry | undefined {
    const entry = this.entries.get(name);
    if (entry && !entry.availability.offered)
      throw new AgentdError("E_CAPABILITY", `tool "${name}" is unavailable: ${entry.availability.reason}`);
    return entry;
  }

  /** Check a result against the tool's `outputSchema`; a mismatch becomes an `isError` result. */
  checkOutput(name: string, result: CallToolResult): CallToolResult {
    const schema = this.entries.get(name)?.tool.outputSchema;
    if (!schema || result.isError === true) return result;
    if (result.structuredContent === undefined || result.structuredContent === null)
      return toolError(`tool "${name}" declares an outputSchema but returned no structuredContent`);
    const v = validateJsonSchema(schema, result.structuredContent);
    if (v.valid) return result;
    this.logger.warn("mcp.tool_output_invalid", { tool: name, errors: v.errors.length });
    return toolError(`tool "${name}" returned structuredContent that does not match its outputSchema: ${v.errors.join("; ")}`);
  }
}

/** A tool-domain error result. */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
