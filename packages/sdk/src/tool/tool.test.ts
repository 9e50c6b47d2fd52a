/**
 * `tool()` with three Standard Schema vendors (valibot, zod, arktype): the JSON Schema the model is
 * offered, arguments validated before `execute`, failures as tool errors, `outputSchema` checked.
 */
import { describe, expect, test } from "bun:test";
import { type } from "arktype";
import * as v from "valibot";
import { z } from "zod";
import { AgentdError } from "../wire/errors.ts";
import type { ToolCallContext } from "../loop/tools.ts";
import { tool } from "./tool.ts";
import { forgetValibotConverter, valibotConverter } from "./valibot-json-schema.ts";
import { LocalToolSet, namedLocalTools } from "./local-tool-set.ts";

const ctx = (runId = "run-1"): ToolCallContext => ({ signal: new AbortController().signal, runId });

const usageError = (f: () => unknown): AgentdError => {
  try {
    f();
  } catch (e) {
    if (AgentdError.isInstance(e)) return e;
    throw e;
  }
  throw new Error("expected an AgentdError");
};

describe("the JSON Schema offered to the model", () => {
  test("zod 4 renders its own (Standard JSON Schema)", () => {
    const t = tool({ name: "w", description: "d", parameters: z.object({ city: z.string() }), execute: ({ city }) => city });
    expect(t.inputSchema).toMatchObject({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
  });

  test("arktype renders its own", () => {
    const t = tool({ name: "w", description: "d", parameters: type({ city: "string" }), execute: ({ city }) => city });
    expect(t.inputSchema).toMatchObject({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
  });

  test("valibot 1.x is rendered by @valibot/to-json-schema when installed (no hand-written jsonSchema)", () => {
    const t = tool({
      name: "w",
      description: "d",
      parameters: v.object({ city: v.pipe(v.string(), v.minLength(2)), days: v.optional(v.number()) }),
      execute: ({ city }) => city,
    });
    expect(t.inputSchema).toEqual({
      type: "object",
      properties: { city: { type: "string", minLength: 2 }, days: { type: "number" } },
      required: ["city"],
    });
    // An explicit jsonSchema still wins.
    const jsonSchema = { type: "object", properties: { town: { type: "string" } } };
    expect(
      tool({ name: "w", description: "d", parameters: v.object({ city: v.string() }), jsonSchema, execute: () => "" }).inputSchema,
    ).toEqual(jsonSchema);
  });

  test("valibot 1.x without @valibot/to-json-schema: an explicit jsonSchema is used, and without one the definition is refused in one line", () => {
    const real = valibotConverter.load;
    valibotConverter.load = () => null;
    forgetValibotConverter();
    try {
      const jsonSchema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
      const t = tool({ name: "w", description: "d", parameters: v.object({ city: v.string() }), jsonSchema, execute: ({ city }) => city });
      expect(t.inputSchema).toEqual(jsonSchema);
      const e = usageError(() =>
        tool({ name: "w", description: "d", parameters: v.object({ city: v.string() }), execute: ({ city }) => city }),
      );
      expect(e.code).toBe("E_USAGE");
      expect(e.message).toContain("valibot");
      expect(e.message).toContain("jsonSchema");
      expect(e.message).toContain("@valibot/to-json-schema");
      expect(e.message).not.toContain("\n");
    } finally {
      valibotConverter.load = real;
      forgetValibotConverter();
    }
  });

  test("a non-object schema, a bad name, a non-validator are refused at definition time", () => {
    expect(usageError(() => tool({ name: "w", description: "d", parameters: z.string(), execute: () => "" })).message).toContain(
      'type: "object"',
    );
    expect(usageError(() => tool({ name: "bad name!", description: "d", parameters: z.object({}), execute: () => "" })).message).toContain(
      "tool name",
    );
    expect(
      usageError(() => tool({ name: "w", description: "d", parameters: { type: "object" } as never, execute: () => "" })).message,
    ).toContain("Standard Schema");
  });
});

describe("a call", () => {
  for (const [vendor, parameters, jsonSchema] of [
    ["valibot", v.object({ city: v.pipe(v.string(), v.minLength(2)) }), { type: "object", properties: { city: { type: "string" } } }],
    ["zod", z.object({ city: z.string().min(2) }), undefined],
    ["arktype", type({ city: "string >= 2" }), undefined],
  ] as const) {
    test(`${vendor}: arguments are validated before execute; invalid ones are an error result naming the field`, async () => {
      const seen: unknown[] = [];
      const t = tool({
        name: "weather",
        description: "d",
        parameters: parameters as never,
        jsonSchema,
        execute: (input: { city: string }, c) => {
          seen.push([input, c.runId]);
          return `${input.city}: 21°C`;
        },
      });
      expect(await t.invoke({ city: "Oslo" }, ctx())).toEqual({ text: "Oslo: 21°C", isError: false });
      expect(seen).toEqual([[{ city: "Oslo" }, "run-1"]]);
      const bad = await t.invoke({ city: "O" }, ctx());
      expect(bad.isError).toBe(true);
      expect(bad.text).toStartWith('invalid arguments for "weather": city');
      const wrongType = await t.invoke({ city: 3 }, ctx());
      expect(wrongType.isError).toBe(true);
      expect(seen).toHaveLength(1);
    });
  }

  test("a throw in execute is an error result; a JSON value is sent as JSON", async () => {
    const failing = tool({
      name: "f",
      description: "d",
      parameters: z.object({}),
      execute: () => {
        throw new Error("disk full");
      },
    });
    expect(await failing.invoke({}, ctx())).toEqual({ text: 'tool "f" failed: disk full', isError: true });
    const json = tool({ name: "j", description: "d", parameters: z.object({}), execute: async () => ({ a: 1 }) });
    expect(await json.invoke({}, ctx())).toEqual({ text: '{"a":1}', isError: false });
  });

  test("outputSchema: the result is validated and becomes structuredContent; an invalid one is an error", async () => {
    let temp: unknown = 21;
    const t = tool({
      name: "w",
      description: "d",
      parameters: z.object({ city: z.string() }),
      outputSchema: z.object({ city: z.string(), celsius: z.number() }),
      execute: ({ city }) => ({ city, celsius: temp as number }),
    });
    expect(t.outputSchema).toMatchObject({ type: "object", properties: { celsius: { type: "number" } } });
    const ok = await t.invoke({ city: "Oslo" }, ctx());
    expect(ok).toEqual({ text: '{"city":"Oslo","celsius":21}', isError: false, structuredContent: { city: "Oslo", celsius: 21 } });
    temp = "warm";
    const bad = await t.invoke({ city: "Oslo" }, ctx());
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain("returned an invalid result: celsius");
  });

  test("an aborted call rejects (the run's abort ends the run), it is not an observation", async () => {
    const controller = new AbortController();
    const t = tool({
      name: "s",
      description: "d",
      parameters: z.object({}),
      execute: (_i, c) => {
        controller.abort();
        throw c.signal.reason;
      },
    });
    await expect(t.invoke({}, { signal: controller.signal, runId: "r" })).rejects.toBeDefined();
  });
});

describe("LocalToolSet", () => {
  const a = tool({ name: "a", description: "A", parameters: z.object({}), execute: () => "from a" });
  test("lists its tools before the next set's, calls its own and passes the rest on", async () => {
    const next = {
      list: async () => [{ name: "subagent_spawn", inputSchema: { type: "object" } }],
      call: async (n: string) => ({ text: `next ${n}`, isError: false }),
    };
    const set = new LocalToolSet(namedLocalTools([a]), next);
    expect((await set.list()).map((d) => d.name)).toEqual(["a", "subagent_spawn"]);
    expect((await set.call("a", {}, ctx())).text).toBe("from a");
    expect((await set.call("subagent_spawn", {}, ctx())).text).toBe("next subagent_spawn");
  });

  test("a record names its tools; unnamed, duplicate or foreign entries are refused", () => {
    const unnamed = tool({ description: "d", parameters: z.object({}), execute: () => "" });
    expect([...namedLocalTools({ lookup: unnamed }).keys()]).toEqual(["lookup"]);
    expect(usageError(() => namedLocalTools([unnamed])).message).toContain("has no name");
    expect(usageError(() => namedLocalTools([a, a])).message).toContain('two tools are named "a"');
    expect(usageError(() => namedLocalTools([{ name: "x" } as never])).message).toContain("tool()");
  });
});
