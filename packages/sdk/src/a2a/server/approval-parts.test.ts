/**
 * A reply on an A2A task that waits for approval: its decision read from a data part (or the bare word), the
 * sender checked — an operator, or the run's owner only where the rule says `decidedBy: "owner"` — and the
 * decision taken at a real desk over a directory store.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import { StoredApprovalDesk } from "../../serve/approvals/stored-desk.ts";
import { DirectoryBackend } from "../../store/directory-backend.ts";
import type { Principal } from "../../serve/principal.ts";
import type { Message } from "../shared/types.ts";
import { decisionOf, replyToApproval } from "./approval-parts.ts";

let dir: string | undefined;
let backend: DirectoryBackend | undefined;
afterEach(async () => {
  await backend?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = backend = undefined;
});

function deskOnDisk(): StoredApprovalDesk {
  dir = mkdtempSync(join(tmpdir(), "agentd-a2a-approval-"));
  const b = new DirectoryBackend(dir);
  backend = b;
  return new StoredApprovalDesk(async () => ({
    get: (k) => b.get(k),
    compareAndSet: (k, v, x) => b.compareAndSet(k, v, x),
    delete: (k, v) => b.delete(k, v),
    list: (p) => b.list(p),
  }));
}

const message = (parts: Message["parts"]): Message => ({ messageId: "m1", role: "ROLE_USER", parts });
const request = (decidedBy?: "owner"): ApprovalRequest => ({
  id: `apr-a2a-${decidedBy ?? "ops"}`,
  runId: "r1",
  toolCallId: "c1",
  name: "fs/delete_file",
  server: "fs",
  tool: "delete_file",
  arguments: { path: "/a" },
  digest: "a".repeat(64),
  rule: { source: "rules", index: 0, label: "approvals.rules[0]", rule: { decision: "ask", ...(decidedBy ? { decidedBy } : {}) } },
  requestedAt: new Date().toISOString(),
});
const ALICE: Principal = { id: "bearer:alice", role: "user" };
const OPS: Principal = { id: "bearer:ops", role: "operator" };

test("the decision comes from a data part, or the bare word; anything else says what to send", () => {
  expect(decisionOf(message([{ data: { decision: "always", reason: "fine" } }]))).toEqual({ decision: "always", reason: "fine" });
  expect(decisionOf(message([{ text: "Deny" }]))).toEqual({ decision: "deny" });
  expect(() => decisionOf(message([{ text: "yes please" }]))).toThrow('send a data part {"decision": "approve" | "deny" | "always"');
});

test("the run's owner decides only where the rule says decidedBy owner; an operator always", async () => {
  const desk = deskOnDisk();
  const held = request();
  await desk.post(held, { principal: ALICE.id, origin: "a2a" });
  const approve = message([{ data: { decision: "approve" } }]);
  expect(() => replyToApproval(desk, ALICE, { request: held, owner: ALICE.id }, approve, undefined)).toThrow(
    "its rule does not say decidedBy owner",
  );
  const own = request("owner");
  await desk.post(own, { principal: ALICE.id, origin: "a2a" });
  replyToApproval(desk, ALICE, { request: own, owner: ALICE.id }, approve, undefined);
  replyToApproval(desk, OPS, { request: held, owner: ALICE.id }, message([{ text: "deny" }]), undefined);
  const decided = async (id: string) => {
    for (;;) {
      const a = await desk.get(id, { operator: true });
      if (a?.state === "decided") return a.decision;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  expect(await decided(own.id)).toMatchObject({ decision: "approve", by: "bearer:alice" });
  expect(await decided(held.id)).toMatchObject({ decision: "deny", by: "bearer:ops" });
  expect(() =>
    replyToApproval(
      desk,
      OPS,
      { request: held, owner: ALICE.id },
      message([{ data: { decision: "approve", digest: "b".repeat(64) } }]),
      undefined,
    ),
  ).toThrow("not the call's");
  await desk.close();
});
