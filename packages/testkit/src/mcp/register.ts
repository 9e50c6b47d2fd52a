/**
 * Registration of a fake server's resource templates and prompts: static content with `{{name}}`
 * substitution, fixed completion lists, or the spec's own code.
 */
import type { Completers, McpServer } from "@agentd/sdk/mcp";
import type { GetPromptResult, Prompt, PromptMessage, ResourceTemplate } from "@agentd/sdk/wire";
import { completeFrom, fill } from "./fill.ts";
import type { FakePromptSpec, FakeResourceTemplateSpec } from "./types.ts";

/** Completers that offer fixed values per name. */
function completers(values: Record<string, string[]> | undefined): Completers {
  const out: Completers = {};
  for (const [name, candidates] of Object.entries(values ?? {})) out[name] = (value) => completeFrom(candidates, value);
  return out;
}

/** Register a resource template. */
export function registerTemplate(server: McpServer, spec: FakeResourceTemplateSpec): void {
  const definition: ResourceTemplate = { uriTemplate: spec.uriTemplate, name: spec.name ?? spec.uriTemplate };
  if (spec.title !== undefined) definition.title = spec.title;
  if (spec.description !== undefined) definition.description = spec.description;
  if (spec.mimeType !== undefined) definition.mimeType = spec.mimeType;
  const mime = spec.mimeType === undefined ? {} : { mimeType: spec.mimeType };
  server.resourceTemplate(
    definition,
    (uri, variables, ctx) => {
      if (spec.read) return spec.read(uri, variables, ctx);
      if (spec.blob !== undefined) return { contents: [{ uri, ...mime, blob: spec.blob }] };
      const text = spec.text === undefined ? JSON.stringify(variables) : fill(spec.text, variables);
      return { contents: [{ uri, ...mime, text }] };
    },
    { complete: completers(spec.complete) },
  );
}

/** Register a prompt. */
export function registerPrompt(server: McpServer, spec: FakePromptSpec): void {
  const definition: Prompt = { name: spec.name };
  if (spec.title !== undefined) definition.title = spec.title;
  definition.description = spec.description ?? `fake prompt ${spec.name}`;
  if (spec.arguments !== undefined) definition.arguments = spec.arguments;
  server.prompt(
    definition,
    (args, ctx): GetPromptResult | Promise<GetPromptResult> => {
      if (spec.get) return spec.get(args, ctx);
      const messages: PromptMessage[] = (spec.messages ?? [{ role: "user", text: defaultText(spec, args) }]).map((m) =>
        "text" in m ? { role: m.role, content: { type: "text", text: fill(m.text, args) } } : { role: m.role, content: m.content },
      );
      return { messages };
    },
    { complete: completers(spec.complete) },
  );
}

function defaultText(spec: FakePromptSpec, args: Record<string, string>): string {
  const named = Object.entries(args).map(([k, v]) => `${k}=${v}`);
  return named.length === 0 ? `prompt ${spec.name}` : `prompt ${spec.name} with ${named.join(", ")}`;
}
