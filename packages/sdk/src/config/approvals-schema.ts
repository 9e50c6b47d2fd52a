/**
 * The `approvals` block of `agentd.json`: which tool calls wait for a person's decision (rules matched in
 * order over `server/tool` globs and the MCP tool annotations the server declares), how long a question
 * waits, and what happens when nobody answers in time (docs/approvals.md). Without it every call is made.
 */
import * as v from "valibot";
import { duration } from "./schema-values.ts";

/** The MCP tool annotations a rule may require (hints the server declares; MCP defaults fill those it leaves out). */
export const ApprovalAnnotationsSchema = v.strictObject({
  readOnlyHint: v.optional(v.boolean()),
  destructiveHint: v.optional(v.boolean()),
  idempotentHint: v.optional(v.boolean()),
  openWorldHint: v.optional(v.boolean()),
});

/** One rule: every condition given must hold; the first rule that matches a call decides it. */
export const ApprovalRuleConfigSchema = v.strictObject({
  /** Globs over `server/tool` (a local tool: its own name); `*` any run of characters, `?` one. One glob or a list. */
  tool: v.optional(v.union([v.pipe(v.string(), v.minLength(1, "a glob")), v.array(v.pipe(v.string(), v.minLength(1, "a glob")))])),
  /** Annotation values the tool must have, e.g. {"readOnlyHint": true}. */
  annotations: v.optional(ApprovalAnnotationsSchema),
  /** "ask" a person, "allow" the call, or "deny" it (the model is told `message`). */
  decision: v.picklist(["ask", "allow", "deny"], '"ask", "allow" or "deny"'),
  /** With "deny": what the model is told. With "ask": shown to the person asked. */
  message: v.optional(v.string()),
  /** With "ask", on served runs: "operator" (default: operators only decide) or "owner" (the run's own principal may decide too). */
  decidedBy: v.optional(v.picklist(["operator", "owner"], '"operator" or "owner"')),
});

/** The `approvals` block. */
export const ApprovalsConfigSchema = v.strictObject({
  /** In order; the first that matches a call decides. No rule matching: the call is made. */
  rules: v.optional(v.array(ApprovalRuleConfigSchema)),
  /** How long one question waits for an answer (default: as long as the run may). */
  timeout: v.optional(duration),
  /** The decision when `timeout` passes: "deny" (default) or "approve". */
  onTimeout: v.optional(v.picklist(["deny", "approve"], '"deny" or "approve"')),
  /**
   * Served MCP runs: ask the caller that started the run itself (form elicitation: approve or deny, a reason)
   * when it declared the elicitation capability — its own run's questions only, beside the operators' channels.
   */
  askCaller: v.optional(v.boolean()),
});
