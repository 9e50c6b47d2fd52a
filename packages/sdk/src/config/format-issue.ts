/**
 * A valibot issue as one line for a person: `field.path: what is expected`. The received VALUE is never
 * echoed: after `${VAR}` expansion a config string may hold a secret (a token in a header), so at most
 * the received value's TYPE is named.
 */
import type * as v from "valibot";

/** The issue's location as `.a.b[0]` (empty at the root). */
export function issuePath(issue: v.BaseIssue<unknown>): string {
  return (issue.path ?? []).map((p) => (typeof p.key === "number" ? `[${p.key}]` : `.${String(p.key)}`)).join("");
}

/** The kind of a value, for "got …" (the value itself is never shown). */
export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isNaN(value) ? "not a number" : "a number";
  if (typeof value === "boolean") return "a boolean";
  if (typeof value === "object") return "an object";
  return typeof value === "undefined" ? "nothing" : `a ${typeof value}`;
}

const NAMED: Record<string, string> = {
  Object: "an object",
  Array: "an array",
  string: "a string",
  number: "a number",
  boolean: "true or false",
  null: "null",
};

/** valibot's `expected` (`"Object"`, `"(string | number)"`, `">=0"`, `'"stdio"'`) in words. */
function describeExpected(issue: v.BaseIssue<unknown>): string {
  const expected = issue.expected;
  if (issue.type === "integer") return "a whole number";
  if (issue.type === "url") return "a URL";
  if (!expected) return `a valid ${issue.type.replace(/_/g, " ")}`;
  const bound = /^(>=|<=|>|<)(.+)$/.exec(expected);
  if (bound) {
    const [, op, n] = bound;
    const words = op === ">=" ? "at least" : op === "<=" ? "at most" : op === ">" ? "more than" : "less than";
    return issue.type.endsWith("_length") ? `a length of ${words} ${n}` : `${words} ${n}`;
  }
  const alternatives = expected.replace(/^\((.*)\)$/, "$1").split(" | ");
  return alternatives.map((a) => NAMED[a] ?? a).join(" or ");
}

/** valibot's own messages start with "Invalid " and quote the input; ours (e.g. "at least 1") do not. */
function isDefaultMessage(issue: v.BaseIssue<unknown>): boolean {
  if (issue.message.startsWith("Invalid ")) return true;
  // Defence in depth: a message that repeats a received string is never shown.
  return typeof issue.input === "string" && issue.input.length > 0 && issue.message.includes(issue.input);
}

/** What is wrong, in words, without the received value. */
export function issueText(issue: v.BaseIssue<unknown>): string {
  if (!isDefaultMessage(issue)) return issue.message;
  if ((issue.type === "strict_object" || issue.type === "strict_tuple") && issue.expected === "never")
    return "unknown field (allowed: see docs/configuration.md)";
  // A required key that is absent: valibot expects the key's name (quoted) and received undefined.
  if (issue.kind === "schema" && issue.input === undefined && issue.expected?.startsWith('"') && issue.type.endsWith("object"))
    return "required, but missing";
  // A union whose input had the right type failed inside one alternative: say what failed there.
  const sub = issue.issues?.[0];
  // (Its sub-issues' paths are relative to the union's input.)
  if (issue.type === "union" && sub && issue.expected === issue.received) {
    const where = issuePath(sub).replace(/^\./, "");
    return `${where ? `${where}: ` : ""}${issueText(sub)}`;
  }
  const expected = describeExpected(issue);
  return issue.kind === "schema" ? `expected ${expected}, got ${describeType(issue.input)}` : `expected ${expected}`;
}

/** Render the first valibot issue as "root.field.path: expected …". */
export function formatIssue(issues: readonly v.BaseIssue<unknown>[], root = "config"): string {
  const issue = issues[0];
  if (!issue) return `${root}: invalid`;
  return `${root}${issuePath(issue)}: ${issueText(issue)}`;
}
