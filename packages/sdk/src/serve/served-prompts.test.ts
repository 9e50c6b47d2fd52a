/**
 * Served prompts on the served agent (in-memory pair, agentd's own client): replacing them sends
 * `notifications/prompts/list_changed`, a {@link PromptList} re-reads the list only then, and a client with
 * prompts switched off ignores the notification; expansion and completion from configured values.
 */
import { describe, expect, test } from "bun:test";
import { McpClient } from "../mcp/client/client.ts";
import { PromptList } from "../mcp/client/prompt-list.ts";
import { MemoryTransport } from "../transport/memory.ts";
import { createServedMcp } from "./served-mcp.ts";
import { completeFrom, expandPrompt, promptInstruction, type ServedPrompt } from "./served-prompts.ts";

const runner = {
  run: async () => ({
    text: "ok",
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    turns: 1,
    runId: "r",
    stopReason: "final" as const,
    toolCalls: 0,
  }),
};
const greet: ServedPrompt = {
  description: "Greet",
  arguments: [{ name: "who", required: true }, { name: "tone" }],
  text: "Hello {{ who }}{{tone}}!",
};

async function client(self: ReturnType<typeof createServedMcp>, prompts: boolean) {
  const [a, b] = MemoryTransport.createPair();
  await self.server.connect(b);
  const c = new McpClient({ name: "t", version: "1" }, { capabilities: { prompts } });
  await c.connect(a);
  return c;
}

describe("served prompts", () => {
  test("expansion fills declared arguments, an absent optional one is empty; completion filters by prefix, any case", () => {
    expect(expandPrompt(greet, { who: "Ada" }).messages).toEqual([{ role: "user", content: { type: "text", text: "Hello Ada!" } }]);
    const chat: ServedPrompt = {
      description: "d",
      arguments: [{ name: "x" }],
      messages: [
        { role: "user", text: "a {{x}}" },
        { role: "assistant", text: "b" },
      ],
    };
    expect(promptInstruction(expandPrompt(chat, { x: "1" }))).toBe("a 1\n\n(assistant) b");
    expect(completeFrom(["Alpha", "alps", "beta"], "AL")).toEqual(["Alpha", "alps"]);
  });

  test("replacing the prompts notifies list_changed; the prompt list re-reads only then; a client with prompts off ignores it", async () => {
    const self = createServedMcp({ runner, prompts: { greet } });
    const on = await client(self, true);
    const off = await client(self, false);
    const list = new PromptList(on);
    expect((await list.prompts()).map((p) => p.name)).toEqual(["greet"]);
    await list.prompts();
    expect(list.listings).toBe(1);

    const offHeard: string[] = [];
    off.on("promptsListChanged", () => offHeard.push("changed"));
    const changed = new Promise<void>((resolve) => on.on("promptsListChanged", () => resolve()));
    self.prompts!.set({ greet, bye: { description: "Bye", text: "Bye" } });
    await changed;
    expect((await list.prompts()).map((p) => p.name)).toEqual(["greet", "bye"]);
    expect(list.listings).toBe(2);
    expect(await list.find("bye")).toMatchObject({ description: "Bye" });

    // Both sessions were sent the notification in the same flush; a round trip on `off` lets it arrive.
    await off.ping();
    expect(offHeard).toEqual([]);
    list.close();
    await on.close();
    await off.close();
  });
});
