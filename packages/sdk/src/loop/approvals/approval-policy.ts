/**
 * Which tool calls need a person's decision: the approval rules matched in order over the qualified tool
 * name and the tool's MCP annotations, combined with a local tool's own `needsApproval`. Pure — no I/O,
 * no clock — so every branch is tested alone (approval-policy.test.ts); the gate (approval-gate.ts) asks.
 *
 * Annotations are hints a server declares about its own tools: a rule keyed on them trusts that server.
 * They are compared with the MCP defaults filled in (read-only false, destructive true, idempotent false,
 * open-world true), so a server that declares nothing is treated as the spec says — a tool that may
 * destroy — and "allow read-only, ask for the rest" asks for it.
 */
import { sha256 } from "../../_internal/hash.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { ApprovalAction, ApprovalRule, MatchedRule, ToolHints } from "./approval-types.ts";

/** What the policy knows of a call before asking anyone. */
export interface PolicyCall {
  /** The qualified name (`server/tool`, or a local tool's own name). */
  name: string;
  annotations?: ToolHints;
}

/** The policy's verdict on one call: what to do, and the rule that said so (none: no rule matched). */
export interface PolicyVerdict {
  action: ApprovalAction;
  rule?: MatchedRule;
}

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/** The annotations with the MCP defaults filled in; a read-only tool is neither destructive nor repeated with effect. */
export function effectiveHints(declared: ToolHints | undefined): Required<ToolHints> {
  const readOnly = declared?.readOnlyHint === true;
  return {
    readOnlyHint: readOnly,
    destructiveHint: readOnly ? false : (declared?.destructiveHint ?? true),
    idempotentHint: readOnly ? true : (declared?.idempotentHint ?? false),
    openWorldHint: declared?.openWorldHint ?? true,
  };
}

const globToRegExp = (glob: string): RegExp => {
  let src = "";
  for (const ch of glob) {
    if (ch === "*") src += ".*";
    else if (ch === "?") src += ".";
    else src += ch.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${src}$`, "su");
};

/** One line naming a rule for a person: where it is and what it matches. */
export function describeRule(rule: ApprovalRule, index: number): string {
  const what: string[] = [];
  if (rule.tool !== undefined)
    what.push(
      `tool ${[rule.tool]
        .flat()
        .map((t) => JSON.stringify(t))
        .join(", ")}`,
    );
  if (rule.annotations)
    what.push(
      Object.entries(rule.annotations)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join(", "),
    );
  return `approvals.rules[${index}] (${what.length ? what.join("; ") : "every tool"} → ${rule.decision})`;
}

/** A compiled rule list: `decide` is called once per tool call. */
export interface ApprovalPolicy {
  /** Whether any rule exists (without rules and without a tool's own `needsApproval`, nothing is ever asked). */
  readonly empty: boolean;
  /** The first rule matching `call`, or none. */
  match(call: PolicyCall): PolicyVerdict | undefined;
  /**
   * The verdict with the tool's own demand folded in: a tool that needs approval is asked even where a rule
   * allows it; a rule that denies still denies. No rule and no demand: allow (today's behaviour).
   */
  decide(call: PolicyCall, toolNeedsApproval: boolean): PolicyVerdict;
}

/** Check `rules` (E_CONFIG_INVALID for a rule that cannot be used) and compile them. */
export function compileApprovalPolicy(rules: readonly ApprovalRule[] = []): ApprovalPolicy {
  const compiled = rules.map((rule, index) => {
    if (rule.decision !== "ask" && rule.decision !== "allow" && rule.decision !== "deny")
      throw new AgentdError("E_CONFIG_INVALID", `approvals.rules[${index}].decision must be "ask", "allow" or "deny"`);
    for (const key of Object.keys(rule.annotations ?? {}))
      if (!(HINTS as readonly string[]).includes(key))
        throw new AgentdError("E_CONFIG_INVALID", `approvals.rules[${index}].annotations.${key}: expected one of ${HINTS.join(", ")}`);
    const globs = rule.tool === undefined ? undefined : [rule.tool].flat().map(globToRegExp);
    const matched: MatchedRule = { source: "rules", index, rule, label: describeRule(rule, index) };
    return { rule, globs, matched };
  });
  const match = (call: PolicyCall): PolicyVerdict | undefined => {
    let hints: Required<ToolHints> | undefined;
    for (const c of compiled) {
      if (c.globs && !c.globs.some((re) => re.test(call.name))) continue;
      if (c.rule.annotations) {
        hints ??= effectiveHints(call.annotations);
        const h = hints;
        if (!Object.entries(c.rule.annotations).every(([k, v]) => v === undefined || h[k as keyof ToolHints] === v)) continue;
      }
      return { action: c.rule.decision, rule: c.matched };
    }
    return undefined;
  };
  return {
    empty: compiled.length === 0,
    match,
    decide(call, toolNeedsApproval) {
      const verdict = match(call);
      if (verdict?.action === "deny" || verdict?.action === "ask") return verdict;
      if (toolNeedsApproval) return { action: "ask", rule: { source: "tool", label: `the tool's own needsApproval (${call.name})` } };
      return verdict ?? { action: "allow" };
    },
  };
}

/** JSON with object keys sorted at every depth and no whitespace: equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The SHA-256 (hex) of the arguments' canonical JSON: what binds a decision to one call. */
export const argumentsDigest = (args: unknown): string => sha256(canonicalJson(args), "hex");
