import { describe, expect, test } from "bun:test";
import { AgentdError } from "../wire/errors.ts";
import { memoryLogger } from "../log.ts";
import { memoryToolSet } from "./__fixtures__/memory-tools.ts";
import { reply, scriptedModel, STEP_USAGE } from "./__fixtures__/scripted-model.ts";
import type { RunEvent } from "./events.ts";
import type { ModelResponse } from "../model/language-model.ts";
import { giveUpReason } from "./run-failure.ts";
import { runLoop } from "./run-loop.ts";

const tools = () => memoryToolSet([{ name: "kb/lookup", run: () => "found" }]);
const filtered = (text: string): ModelResponse => ({
  content: [{ type: "text", text }],
  finishReason: "content-filter",
  usage: STEP_USAGE,
});

/** Run to the end; the error it failed with (or undefined), its events and records. */
async function outcome(
  steps: ModelResponse[],
  options: { supportsTools?: boolean; outputSchema?: Record<string, unknown>; maxOutputRetries?: number } = {},
) {
  const events: RunEvent[] = [];
  const logger = memoryLogger();
  const model = scriptedModel(steps, { supportsTools: options.supportsTools ?? true });
  try {
    await runLoop({
      model,
      tools: tools(),
      input: "go",
      runId: "f1",
      logger,
      onEvent: (e) => events.push(e),
      outputSchema: options.outputSchema,
      maxOutputRetries: options.maxOutputRetries,
    });
    return { error: undefined, events, logger, model };
  } catch (e) {
    if (!AgentdError.isInstance(e)) throw e;
    return { error: e, events, logger, model };
  }
}

describe("a run fails (E_RUN_FAILED with a reason) when the answer is not one a caller can use", () => {
  test("content filter: the provider withheld the answer, even with some text", async () => {
    const { error, events, logger } = await outcome([filtered("I can help with part of th")]);
    expect(error?.code).toBe("E_RUN_FAILED");
    expect(error?.options.data).toMatchObject({
      reason: "content-filter",
      stopReason: "failed",
      turns: 1,
      runId: "f1",
      usage: { totalTokens: 15 },
    });
    expect(error?.message).toContain("content filter");
    expect(events.at(-1)).toMatchObject({ type: "run-end", stopReason: "failed", error: "E_RUN_FAILED", reason: "content-filter" });
    // run.end carries the message, not only the code.
    expect(logger.records.find((r) => r.event === "run.end")).toMatchObject({
      level: "warn",
      error: "E_RUN_FAILED",
      message: error!.message,
    });
  });

  for (const text of ["", "   \n"])
    test(`empty final answer (${JSON.stringify(text)})`, async () => {
      const { error } = await outcome([reply(text)]);
      expect(error?.code).toBe("E_RUN_FAILED");
      expect(error?.options.data?.reason).toBe("empty-answer");
    });

  test("the model gives up (native): GIVE_UP: with its reason", async () => {
    const { error, model } = await outcome([reply("GIVE_UP: the inbox file does not exist")]);
    expect(error?.options.data?.reason).toBe("gave-up");
    expect(error?.message).toBe("the model gave up: the inbox file does not exist");
    // The system prompt told it how.
    const system = model.requests[0]!.messages[0]!;
    expect(system.role === "system" && system.content).toContain("GIVE_UP:");
  });

  test("the model gives up (JSON action shape): give_up action", async () => {
    const { error, model } = await outcome([reply('{"action":"give_up","reason":"no tool can read PDFs"}')], { supportsTools: false });
    expect(error?.options.data?.reason).toBe("gave-up");
    expect(error?.message).toBe("the model gave up: no tool can read PDFs");
    const system = model.requests[0]!.messages[0]!;
    expect(system.role === "system" && system.content).toContain('"action":"give_up"');
  });

  test("a structured answer that never validates after its re-asks", async () => {
    const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    const { error, model } = await outcome([reply("nope"), reply('{"n":"x"}')], { outputSchema: schema, maxOutputRetries: 1 });
    expect(model.requests).toHaveLength(2);
    expect(error?.options.data?.reason).toBe("output-invalid");
  });

  test("answers that merely mention the word, ALREADY_DONE, and a normal answer succeed", async () => {
    for (const text of ["Nothing to GIVE_UP here", "GIVE_UPDATE: no", "ALREADY_DONE", "fine"]) {
      const { error } = await outcome([reply(text)]);
      expect(error).toBeUndefined();
    }
  });
});

test("giveUpReason reads the forms a model writes", () => {
  expect(giveUpReason("GIVE_UP: no access")).toBe("no access");
  expect(giveUpReason("  GIVE_UP - no access ")).toBe("no access");
  expect(giveUpReason("GIVE_UP")).toBe("");
  expect(giveUpReason("GIVE_UPS")).toBeUndefined();
  expect(giveUpReason("I GIVE_UP")).toBeUndefined();
});
