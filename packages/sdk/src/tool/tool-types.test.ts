/**
 * The types `tool()` derives from its schemas, checked by the compiler (`tsc --noEmit` runs over this
 * file): `execute` gets the parameters' output type, must return the outputSchema's input type, and a
 * call's `structuredContent` has the outputSchema's output type. Each `@ts-expect-error` line fails the
 * type check if the mistake it shows stops being an error.
 */
import { expect, expectTypeOf, test } from "bun:test";
import { type } from "arktype";
import * as v from "valibot";
import { z } from "zod";
import type { ToolCallContext } from "../loop/tools.ts";
import { tool } from "./tool.ts";

const ctx: ToolCallContext = { signal: new AbortController().signal, runId: "run-types" };

test("zod: execute's input is the parsed type; structuredContent is the output schema's output", async () => {
  const t = tool({
    name: "forecast",
    description: "d",
    parameters: z.object({ city: z.string(), days: z.number().int().default(1) }),
    outputSchema: z.object({ city: z.string(), highs: z.array(z.number()) }),
    execute: (input) => {
      // `days` has a default: present (a number) in what execute receives.
      expectTypeOf(input).toEqualTypeOf<{ city: string; days: number }>();
      return { city: input.city, highs: Array.from({ length: input.days }, () => 20) };
    },
  });
  const r = await t.invoke({ city: "Oslo" }, ctx);
  expectTypeOf(r.structuredContent).toEqualTypeOf<{ city: string; highs: number[] } | undefined>();
  expect(r.structuredContent).toEqual({ city: "Oslo", highs: [20] });
});

test("valibot and arktype infer the same way", () => {
  tool({
    name: "v",
    description: "d",
    parameters: v.object({ n: v.number() }),
    jsonSchema: { type: "object" },
    execute: (input) => {
      expectTypeOf(input).toEqualTypeOf<{ n: number }>();
      return "";
    },
  });
  tool({
    name: "a",
    description: "d",
    parameters: type({ n: "number" }),
    execute: (input) => {
      expectTypeOf(input).toEqualTypeOf<{ n: number }>();
      return "";
    },
  });
});

test("mistakes the compiler refuses", () => {
  tool({
    name: "m",
    description: "d",
    parameters: z.object({ city: z.string() }),
    // @ts-expect-error `town` is not a parameter
    execute: (input) => input.town,
  });
  tool({
    name: "o",
    description: "d",
    parameters: z.object({}),
    outputSchema: z.object({ celsius: z.number() }),
    // @ts-expect-error the result must match outputSchema
    execute: () => ({ celsius: "warm" }),
  });
  // And at run time too, for JavaScript callers.
  // @ts-expect-error parameters must be a Standard Schema validator
  expect(() => tool({ name: "p", description: "d", parameters: { type: "object" }, execute: () => "" })).toThrow("Standard Schema");
});
