import { describe, expect, test } from "bun:test";
import { AgentdError } from "../wire/errors.ts";
import { memoryToolSet } from "./__fixtures__/memory-tools.ts";
import { reply, scriptedModel } from "./__fixtures__/scripted-model.ts";
import { runLoop } from "./run-loop.ts";
import { parseStructuredOutput } from "./structured-output.ts";

const schema = {
  type: "object",
  properties: { title: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
  required: ["title"],
  additionalProperties: false,
};
const noTools = () => memoryToolSet([]);

describe("parseStructuredOutput", () => {
  test("reads the whole text, a fenced block, or an object inside prose", () => {
    expect(parseStructuredOutput('{"title":"a"}', schema)).toEqual({ ok: true, value: { title: "a" } });
    expect(parseStructuredOutput('Here:\n```json\n{"title":"b"}\n```\nDone.', schema)).toEqual({ ok: true, value: { title: "b" } });
    expect(parseStructuredOutput('Sure! {"title":"c","tags":["x"]} hope that helps', schema)).toEqual({
      ok: true,
      value: { title: "c", tags: ["x"] },
    });
  });

  test("the first candidate that validates wins; otherwise the first one's errors are reported", () => {
    expect(parseStructuredOutput('{"nope":1} then {"title":"t"}', schema)).toEqual({ ok: true, value: { title: "t" } });
    expect(parseStructuredOutput('{"title":1}', schema)).toEqual({ ok: false, errors: ["$.title: expected string, got integer"] });
    expect(parseStructuredOutput("no json here", schema)).toEqual({ ok: false, errors: ["the answer contains no JSON value"] });
  });

  test("non-object schemas: arrays parse as a whole, plain prose satisfies a string schema", () => {
    expect(parseStructuredOutput("[1,2]", { type: "array", items: { type: "integer" } })).toEqual({ ok: true, value: [1, 2] });
    expect(parseStructuredOutput("  just words ", { type: "string" })).toEqual({ ok: true, value: "just words" });
  });
});

describe("structured output in the loop", () => {
  test("success: asks via responseFormat and the prompt, returns the parsed value", async () => {
    const model = scriptedModel([reply('```json\n{"title":"Report","tags":["q3"]}\n```')]);
    const r = await runLoop({ model, tools: noTools(), input: "write it", runId: "o1", outputSchema: schema });
    expect(r.output).toEqual({ title: "Report", tags: ["q3"] });
    expect(r.text).toContain('"title":"Report"');
    expect(model.requests[0]?.responseFormat).toEqual({ type: "json", schema, name: "output" });
    const system = model.requests[0]?.messages[0];
    expect(system?.role === "system" && system.content).toContain(JSON.stringify(schema));
  });

  test("a mismatch is re-asked with the validation errors, then succeeds", async () => {
    const model = scriptedModel([reply('{"title":"x","extra":true}'), reply('{"title":"x"}')]);
    const r = await runLoop({ model, tools: noTools(), input: "write it", runId: "o2", outputSchema: schema });
    expect(r.output).toEqual({ title: "x" });
    expect(r.turns).toBe(2);
    const correction = model.requests[1]?.messages.at(-1);
    expect(correction?.role).toBe("user");
    expect(correction?.role === "user" && correction.content).toContain("$.extra: is not an allowed property");
  });

  test("still wrong after maxOutputRetries: rejects E_RUN_FAILED with the errors", async () => {
    const model = scriptedModel([reply("nope"), reply('{"title":2}'), reply('{"tags":[]}'), reply('{"title":"late"}')]);
    const e = await runLoop({ model, tools: noTools(), input: "write it", runId: "o3", outputSchema: schema }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(AgentdError.isInstance(e)).toBe(true);
    if (!AgentdError.isInstance(e)) return;
    expect(e.code).toBe("E_RUN_FAILED");
    expect(e.options.data).toMatchObject({ turns: 3, runId: "o3", stopReason: "failed", errors: ["$.title: is required"] });
    expect(model.requests.length).toBe(3);
  });

  test("maxOutputRetries: 0 fails on the first mismatch", async () => {
    const model = scriptedModel([reply('{"title":2}'), reply('{"title":"x"}')]);
    const e = await runLoop({ model, tools: noTools(), input: "w", runId: "o4", outputSchema: schema, maxOutputRetries: 0 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(AgentdError.isInstance(e) && e.code).toBe("E_RUN_FAILED");
    expect(model.requests.length).toBe(1);
  });
});
