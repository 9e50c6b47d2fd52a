/**
 * The conformance fixture's elicitation tools: each sends `elicitation/create` with the schema its
 * scenario inspects (plain form, SEP-1034 defaults, SEP-1330 enum variants) and reports the answer.
 */
import type { CallToolResult } from "@agentd/sdk/wire";
import type { ServerContext } from "@agentd/sdk/mcp";
import type { FakeToolSpec } from "./types.ts";

type Schema = Record<string, unknown>;

const DEFAULTS_SCHEMA: Schema = {
  type: "object",
  properties: {
    name: { type: "string", description: "User name", default: "John Doe" },
    age: { type: "integer", description: "User age", default: 30 },
    score: { type: "number", description: "User score", default: 95.5 },
    status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
    verified: { type: "boolean", description: "Verification status", default: true },
  },
};

const ENUMS_SCHEMA: Schema = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", description: "Untitled single-select", enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string",
      description: "Titled single-select",
      oneOf: [
        { const: "value1", title: "First Option" },
        { const: "value2", title: "Second Option" },
        { const: "value3", title: "Third Option" },
      ],
    },
    legacyEnum: {
      type: "string",
      description: "Legacy titled enum",
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"],
    },
    untitledMulti: {
      type: "array",
      description: "Untitled multi-select",
      items: { type: "string", enum: ["option1", "option2", "option3"] },
    },
    titledMulti: {
      type: "array",
      description: "Titled multi-select",
      items: {
        anyOf: [
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
          { const: "value3", title: "Third Choice" },
        ],
      },
    },
  },
};

/** The three elicitation tools; `text` builds a text result. */
export function elicitationTools(text: (t: string) => CallToolResult): FakeToolSpec[] {
  const elicit =
    (message: (args: Record<string, unknown>) => string, schema: Schema, report: (answer: string) => string) =>
    async (args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult> => {
      if (!ctx.session.clientCapabilities.elicitation) return { ...text("the client does not support elicitation"), isError: true };
      const answer = await ctx.sendRequest<{ action: string; content?: unknown }>("elicitation/create", {
        message: message(args),
        requestedSchema: schema,
      });
      return text(report(`action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`));
    };
  return [
    {
      name: "test_elicitation",
      description: "Asks the user for a username and an email",
      inputSchema: {
        type: "object",
        properties: { message: { type: "string", description: "The message to show the user" } },
        required: ["message"],
      },
      handler: elicit(
        (args) => String(args.message),
        {
          type: "object",
          properties: {
            username: { type: "string", description: "User's response" },
            email: { type: "string", description: "User's email address" },
          },
          required: ["username", "email"],
        },
        (answer) => `User response: ${answer}`,
      ),
    },
    {
      name: "test_elicitation_sep1034_defaults",
      description: "Elicitation with defaults for every primitive type (SEP-1034)",
      inputSchema: { type: "object", properties: {} },
      handler: elicit(
        () => "Please review and update the form fields with defaults",
        DEFAULTS_SCHEMA,
        (a) => `Elicitation completed: ${a}`,
      ),
    },
    {
      name: "test_elicitation_sep1330_enums",
      description: "Elicitation with every enum variant (SEP-1330)",
      inputSchema: { type: "object", properties: {} },
      handler: elicit(
        () => "Please select options from the enum fields",
        ENUMS_SCHEMA,
        (a) => `Elicitation completed: ${a}`,
      ),
    },
  ];
}
