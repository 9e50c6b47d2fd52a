/**
 * A run that continues a conversation, stops to wait for a decision and is resumed by another agent on the
 * same stores (as another process would): the conversation ends with the run's whole exchange once, cut as
 * the first part cut it — here a run that waited at its first turn (nothing of it saved yet) after the
 * growth policy dropped the oldest turns, so the resumed part writes the cut history and the counts.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryLogger } from "../../log.ts";
import { callTools, reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { ModelMessage } from "../../model/language-model.ts";
import { tool } from "../../tool/tool.ts";
import type { StandardSchemaV1 } from "../../tool/standard-schema.ts";
import { createAgent } from "../create-agent.ts";
import { DocumentConversationStore } from "./document-conversations.ts";
import { LocalDocuments } from "./local-documents.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "agentd-conv-resume-"));
  dirs.push(d);
  return d;
};

const pathSchema: StandardSchemaV1<{ path: string }> = {
  "~standard": { version: 1, vendor: "test", validate: (v) => ({ value: v as { path: string } }) },
};
const ran: string[] = [];
const clean = tool({
  name: "clean",
  description: "delete a path",
  parameters: pathSchema,
  jsonSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  needsApproval: true,
  execute: ({ path }) => (ran.push(path), `cleaned ${path}`),
});

const text = (m: ModelMessage) =>
  typeof m.content === "string"
    ? `${m.role}: ${m.content.slice(0, 12)}`
    : `${m.role}: ${m.content.map((p) => (p.type === "text" ? p.text : p.type === "tool-call" ? `call ${p.toolName}` : "result")).join(" ")}`;

describe("a waiting run's conversation, resumed by another agent", () => {
  test("waited at its first turn after the history was cut: the cut history, then the whole exchange once", async () => {
    const conversations = tempDir();
    const runs = tempDir();
    const agentOn = (steps: Parameters<typeof scriptedModel>[0]) =>
      createAgent({
        model: scriptedModel(steps),
        tools: [clean],
        logger: memoryLogger(),
        approvals: { rules: [] },
        conversations: { store: new DocumentConversationStore(async () => new LocalDocuments(conversations)), maxTokens: 400 },
        durability: { waitingRuns: new LocalDocuments(runs) },
      });
    const long = "x".repeat(600);
    // The model counts 600 tokens at the second run's request: the next run cuts the oldest turn to fit 400.
    {
      await using first = agentOn([
        reply(`old answer ${long}`),
        reply(`newer answer ${long}`, { inputTokens: 500, outputTokens: 100, totalTokens: 600 }),
      ]);
      await first.run(`old question ${long}`, { conversation: "inbox" });
      await first.run(`newer question ${long}`, { conversation: "inbox" });
    }
    await using waiter = agentOn([callTools([["clean", { path: "/tmp/a" }]])]);
    const waiting = await waiter.run("clean up", { runId: "run-c", conversation: "inbox" });
    expect(waiting.status).toBe("waiting");
    // Nothing of this run is saved yet: its first turn waits.
    expect((await waiter.conversations.get("inbox"))!.messages).toHaveLength(4);

    await using resumer = agentOn([reply("cleaned")]);
    const q = waiting.pending![0]!;
    const done = await resumer.resume("run-c", { [q.id]: { decision: "approve", digest: q.digest } });
    expect(done).toMatchObject({ status: "finished", text: "cleaned", conversationId: "inbox" });
    expect(ran).toEqual(["/tmp/a"]);
    const stored = (await resumer.conversations.get("inbox"))!;
    expect(stored.messages.map(text)).toEqual([
      "user: newer questi",
      `assistant: newer answer ${long}`,
      "user: clean up",
      "assistant: call clean",
      "tool: result",
      "assistant: cleaned",
    ]);
    // The first part dropped the oldest turn to fit; the save records it.
    expect(stored.dropped).toBe(2);
    expect(stored.runs.at(-1)).toBe("run-c");
  });
});
