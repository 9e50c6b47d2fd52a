import { describe, expect, test } from "bun:test";
import type { ApprovalRequest } from "@agentd/sdk";
import { cliApprovalChannel, unansweredLine } from "./approval-channel.ts";
import { approvalQuestion } from "./ask-approval.ts";

const request: ApprovalRequest = {
  id: "apr-1",
  runId: "run-1",
  toolCallId: "call-1",
  name: "fs/delete_file",
  server: "fs",
  tool: "delete_file",
  arguments: { path: "/srv/old", token: "[redacted]" },
  digest: "0".repeat(64),
  rule: {
    source: "rules",
    index: 0,
    rule: { tool: "fs/delete_*", decision: "ask", message: "deletions wait for a person" },
    label: 'approvals.rules[0] (tool "fs/delete_*" → ask)',
  },
  requestedAt: "2026-12-06T00:00:00.000Z",
};

describe("agentd run's approval channel", () => {
  test("not in a terminal: denied, with one line naming the tool, the rule and where to answer", async () => {
    const lines: string[] = [];
    const ask = cliApprovalChannel({ interactive: false, writeLine: (l) => lines.push(l) });
    const decision = await ask(request, new AbortController().signal);
    expect(decision).toMatchObject({ decision: "deny", by: "agentd run" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(unansweredLine(request));
    expect(lines[0]!.trimEnd().includes("\n")).toBe(false);
    expect(lines[0]).toContain('fs/delete_file needs a person\'s approval (approvals.rules[0] (tool "fs/delete_*" → ask))');
  });

  test("the terminal question names the tool, its server, the masked arguments, the rule and its message", () => {
    const q = approvalQuestion(request);
    expect(q).toStartWith("Allow tool delete_file of server fs?");
    expect(q).toContain('"token": "[redacted]"');
    expect(q).toContain("asked by approvals.rules[0]");
    expect(q).toContain("deletions wait for a person");
    const long = approvalQuestion({ ...request, arguments: { text: "x".repeat(1000) } });
    expect(long.length).toBeLessThan(500);
    expect(long).toContain("…");
  });
});
