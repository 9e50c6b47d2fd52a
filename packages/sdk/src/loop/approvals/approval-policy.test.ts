import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { AgentdError } from "../../wire/errors.ts";
import { argumentsDigest, canonicalJson, compileApprovalPolicy, describeRule, effectiveHints } from "./approval-policy.ts";
import type { ApprovalRule } from "./approval-types.ts";

describe("approval rules", () => {
  test("no rules: every call is allowed, nothing is asked (today's behaviour)", () => {
    const policy = compileApprovalPolicy();
    expect(policy.empty).toBe(true);
    expect(policy.decide({ name: "fs/delete_file" }, false)).toEqual({ action: "allow" });
  });

  test("the first matching rule decides, over server/tool globs", () => {
    const policy = compileApprovalPolicy([
      { tool: "fs/delete_*", decision: "ask" },
      { tool: ["fs/*", "db/read"], decision: "allow" },
      { tool: "db/*", decision: "deny", message: "no database writes" },
    ]);
    expect(policy.decide({ name: "fs/delete_file" }, false)).toMatchObject({ action: "ask", rule: { source: "rules", index: 0 } });
    expect(policy.decide({ name: "fs/read_file" }, false)).toMatchObject({ action: "allow", rule: { index: 1 } });
    expect(policy.decide({ name: "db/read" }, false)).toMatchObject({ action: "allow", rule: { index: 1 } });
    expect(policy.decide({ name: "db/drop" }, false)).toMatchObject({
      action: "deny",
      rule: { index: 2, rule: { message: "no database writes" } },
    });
    // Nothing matched: allowed, and no rule is named.
    expect(policy.decide({ name: "web/search" }, false)).toEqual({ action: "allow" });
  });

  test("a glob matches the whole name: fs/delete_* does not match xfs/delete_file or fs/delete", () => {
    const policy = compileApprovalPolicy([{ tool: "fs/delete_*", decision: "deny" }]);
    expect(policy.match({ name: "xfs/delete_file" })).toBeUndefined();
    expect(policy.match({ name: "fs/delete" })).toBeUndefined();
    expect(policy.match({ name: "fs/delete_" })?.action).toBe("deny");
  });

  test("ask unless read-only: a server that declares nothing is asked", () => {
    const rules: ApprovalRule[] = [{ annotations: { readOnlyHint: true }, decision: "allow" }, { decision: "ask" }];
    const policy = compileApprovalPolicy(rules);
    expect(policy.decide({ name: "s/read", annotations: { readOnlyHint: true } }, false).action).toBe("allow");
    expect(policy.decide({ name: "s/write", annotations: { readOnlyHint: false } }, false).action).toBe("ask");
    expect(policy.decide({ name: "s/plain" }, false).action).toBe("ask");
  });

  test("annotations are compared with the MCP defaults filled in", () => {
    const destructive = compileApprovalPolicy([{ annotations: { destructiveHint: true }, decision: "ask" }]);
    // No annotations: destructive by default.
    expect(destructive.match({ name: "s/x" })?.action).toBe("ask");
    expect(destructive.match({ name: "s/x", annotations: { destructiveHint: false } })).toBeUndefined();
    // A read-only tool is not destructive whatever else it says.
    expect(destructive.match({ name: "s/x", annotations: { readOnlyHint: true, destructiveHint: true } })).toBeUndefined();
    const both = compileApprovalPolicy([{ tool: "s/*", annotations: { openWorldHint: false, idempotentHint: true }, decision: "allow" }]);
    expect(both.match({ name: "s/x", annotations: { openWorldHint: false, idempotentHint: true } })?.action).toBe("allow");
    expect(both.match({ name: "s/x", annotations: { openWorldHint: false } })).toBeUndefined();
    expect(both.match({ name: "t/x", annotations: { openWorldHint: false, idempotentHint: true } })).toBeUndefined();
    expect(effectiveHints(undefined)).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
  });

  test("a tool's own needsApproval asks even where a rule allows; a deny rule still denies", () => {
    const policy = compileApprovalPolicy([
      { tool: "wipe", decision: "deny", message: "never" },
      { tool: "*", decision: "allow" },
    ]);
    expect(policy.decide({ name: "clean" }, true)).toMatchObject({ action: "ask", rule: { source: "tool" } });
    expect(policy.decide({ name: "clean" }, false).action).toBe("allow");
    expect(policy.decide({ name: "wipe" }, true)).toMatchObject({ action: "deny", rule: { index: 0 } });
    expect(compileApprovalPolicy().decide({ name: "clean" }, true).action).toBe("ask");
  });

  test("a rule that cannot be used is one clear config error", () => {
    const bad = (rule: unknown) => {
      try {
        compileApprovalPolicy([rule as ApprovalRule]);
      } catch (e) {
        expect(AgentdError.isInstance(e) && e.code).toBe("E_CONFIG_INVALID");
        return (e as Error).message;
      }
      throw new Error("accepted");
    };
    expect(bad({ tool: "x", decision: "maybe" })).toBe('approvals.rules[0].decision must be "ask", "allow" or "deny"');
    expect(bad({ annotations: { readonly: true }, decision: "ask" })).toContain("approvals.rules[0].annotations.readonly");
  });

  test("a rule is named by its place and what it matches", () => {
    expect(describeRule({ tool: "fs/delete_*", decision: "ask" }, 1)).toBe('approvals.rules[1] (tool "fs/delete_*" → ask)');
    expect(describeRule({ annotations: { readOnlyHint: false }, decision: "ask" }, 0)).toBe(
      "approvals.rules[0] (readOnlyHint: false → ask)",
    );
    expect(describeRule({ decision: "deny" }, 2)).toBe("approvals.rules[2] (every tool → deny)");
  });
});

describe("the arguments' digest", () => {
  test("canonical JSON sorts keys at every depth and drops undefined", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: "x" }, u: undefined })).toBe(
      '{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });

  test("equal arguments in any key order share a digest; any change gives another", () => {
    const d = argumentsDigest({ path: "/tmp/a", force: true });
    expect(d).toBe(argumentsDigest({ force: true, path: "/tmp/a" }));
    expect(d).toBe(createHash("sha256").update('{"force":true,"path":"/tmp/a"}').digest("hex"));
    expect(d).not.toBe(argumentsDigest({ path: "/tmp/b", force: true }));
    expect(d).toMatch(/^[0-9a-f]{64}$/);
  });
});
