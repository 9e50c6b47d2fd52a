/** Folding A2A replies into what the model reads: artifact chunks, part kinds, usage, and each end state. */
import { expect, test } from "bun:test";
import { emptyReply, foldEvent, foldTask, renderParts, replyOutcome, settled } from "./reply.ts";

const status = (taskId: string, state: string, text?: string) => ({
  statusUpdate: { taskId, status: { state, message: text ? { messageId: "m", role: "ROLE_AGENT", parts: [{ text }] } : undefined } },
});

test("artifact chunks with append continue the text; a new artifact id is another artifact", () => {
  const r = emptyReply();
  foldEvent(r, { task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } });
  foldEvent(r, { artifactUpdate: { taskId: "t1", artifact: { artifactId: "a", parts: [{ text: "Hel" }] } } });
  foldEvent(r, { artifactUpdate: { taskId: "t1", artifact: { artifactId: "a", parts: [{ text: "lo" }] }, append: true } });
  foldEvent(r, { artifactUpdate: { taskId: "t1", artifact: { artifactId: "b", parts: [{ data: { n: 1 } }] } } });
  expect(settled(r)).toBe(false);
  foldEvent(r, status("t1", "TASK_STATE_COMPLETED"));
  expect(settled(r)).toBe(true);
  const out = replyOutcome("peer", "a2a:peer", r);
  expect(out).toMatchObject({
    isError: false,
    text: 'Hello\n\n{"n":1}',
    structuredContent: { agent: "peer", state: "completed", taskId: "t1", contextId: "c1" },
  });
});

test("files are named, never inlined", () => {
  expect(
    renderParts([
      { url: "https://x.example/r.pdf", filename: "r.pdf", mediaType: "application/pdf" },
      { raw: "AAAA", filename: "b.bin" },
    ]),
  ).toBe("[file r.pdf (application/pdf): https://x.example/r.pdf]\n[file b.bin: 3 bytes not shown]");
});

test("usage in metadata counts; absent or malformed usage does not", () => {
  const r = emptyReply();
  foldTask(r, { id: "t", status: { state: "TASK_STATE_COMPLETED" }, metadata: { usage: { inputTokens: 12, outputTokens: 4 } } });
  expect(replyOutcome("p", "a2a:p", r).usage).toEqual({ inputTokens: 12, outputTokens: 4, totalTokens: 16 });
  const bad = emptyReply();
  foldTask(bad, { id: "t", status: { state: "TASK_STATE_COMPLETED" }, metadata: { usage: { inputTokens: "lots" } } });
  expect(replyOutcome("p", "a2a:p", bad).usage).toBeUndefined();
});

test("failed, rejected, canceled and auth-required are tool errors with the agent's words", () => {
  for (const [state, word] of [
    ["TASK_STATE_FAILED", "failed"],
    ["TASK_STATE_REJECTED", "rejected"],
    ["TASK_STATE_CANCELED", "canceled"],
  ] as const) {
    const r = emptyReply();
    foldTask(r, { id: "t9", status: { state, message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "out of paper" }] } } });
    expect(replyOutcome("p", "a2a:p", r)).toMatchObject({
      isError: true,
      text: `The agent 'p' ended the task ${word} (task t9): out of paper`,
    });
  }
  const auth = emptyReply();
  foldEvent(auth, status("t2", "TASK_STATE_AUTH_REQUIRED", "log in at https://x.example"));
  expect(replyOutcome("p", "a2a:p", auth)).toMatchObject({
    isError: true,
    text: "The agent 'p' needs authorization agentd cannot give it (task t2): log in at https://x.example",
  });
});

test("input-required says how to answer on the same task", () => {
  const r = emptyReply();
  foldTask(r, {
    id: "t3",
    contextId: "c3",
    status: { state: "TASK_STATE_INPUT_REQUIRED", message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "Which city?" }] } },
  });
  expect(replyOutcome("p", "a2a:p", r).text).toBe(
    'The agent \'p\' needs more input before it can go on (task t3): Which city?\nTo answer, call a2a:p again with {"message":"<your answer>","taskId":"t3","contextId":"c3"}.',
  );
});

test("a direct message is the answer", () => {
  const r = emptyReply();
  foldEvent(r, { message: { messageId: "m", role: "ROLE_AGENT", contextId: "c", parts: [{ text: "hi" }] } });
  expect(settled(r)).toBe(true);
  expect(replyOutcome("p", "a2a:p", r)).toMatchObject({
    isError: false,
    text: "hi",
    structuredContent: { state: "message", contextId: "c" },
  });
});
