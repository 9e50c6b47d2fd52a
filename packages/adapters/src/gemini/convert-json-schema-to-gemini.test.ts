import { describe, expect, test } from "bun:test";
import { convertJsonSchemaToGemini } from "./convert-json-schema-to-gemini.ts";

describe("convertJsonSchemaToGemini", () => {
  test("drops keywords Gemini refuses, keeps the ones it takes", () => {
    expect(
      convertJsonSchemaToGemini({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $id: "x",
        type: "object",
        additionalProperties: false,
        properties: {
          name: { type: "string", description: "Who", minLength: 1, maxLength: 10, pattern: "^[a-z]+$", examples: ["a"] },
          when: { type: "string", format: "date-time" },
          site: { type: "string", format: "uri" },
          n: { type: "integer", minimum: 0, exclusiveMaximum: 9, format: "int32" },
        },
        required: ["name", "ghost"],
      }),
    ).toEqual({
      type: "object",
      properties: {
        name: { type: "string", description: "Who", minLength: 1, maxLength: 10, pattern: "^[a-z]+$" },
        when: { type: "string", format: "date-time" },
        site: { type: "string" },
        n: { type: "integer", minimum: 0, format: "int32" },
      },
      required: ["name"],
    });
  });

  test("nullable types, pydantic Optional, const and enums", () => {
    expect(
      convertJsonSchemaToGemini({
        type: "object",
        properties: {
          a: { type: ["string", "null"] },
          b: { anyOf: [{ type: "integer" }, { type: "null" }], description: "maybe" },
          c: { const: "fixed" },
          d: { type: "integer", enum: [1, 2, 3] },
          e: { type: ["string", "number"] },
          f: { oneOf: [{ type: "string" }, { type: "boolean" }] },
        },
      })?.properties,
    ).toEqual({
      a: { type: "string", nullable: true },
      b: { type: "integer", nullable: true, description: "maybe" },
      c: { type: "string", enum: ["fixed"], format: "enum" },
      d: { type: "integer", description: "Allowed values: 1, 2, 3." },
      e: { anyOf: [{ type: "string" }, { type: "number" }] },
      f: { anyOf: [{ type: "string" }, { type: "boolean" }] },
    });
  });

  test("$ref into $defs is inlined; recursion is cut off", () => {
    const out = convertJsonSchemaToGemini({
      type: "object",
      $defs: {
        Point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x"] },
        Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } },
      },
      properties: {
        p: { $ref: "#/$defs/Point", description: "where" },
        list: { type: "array", items: { $ref: "#/$defs/Point" } },
        n: { $ref: "#/$defs/Node" },
      },
    });
    expect(out?.properties).toMatchObject({
      p: { type: "object", description: "where", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x"] },
      list: { type: "array", items: { type: "object", required: ["x"] } },
    });
    expect(JSON.stringify(out)).not.toContain("$ref");
    expect(JSON.stringify(out)).not.toContain("$defs");
  });

  test("allOf merges object parts", () => {
    expect(
      convertJsonSchemaToGemini({
        allOf: [
          { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
          { type: "object", properties: { b: { type: "number" } }, required: ["b"] },
        ],
      }),
    ).toEqual({ type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, required: ["a", "b"] });
  });

  test("an object schema without properties is left out; nested ones stay plain objects", () => {
    expect(convertJsonSchemaToGemini({ type: "object", properties: {}, additionalProperties: false })).toBeUndefined();
    expect(convertJsonSchemaToGemini({ type: "object" })).toBeUndefined();
    expect(convertJsonSchemaToGemini({ type: "object", properties: { meta: { type: "object", additionalProperties: true } } })).toEqual({
      type: "object",
      properties: { meta: { type: "object" } },
    });
    expect(convertJsonSchemaToGemini({ type: "string" })).toEqual({ type: "string" });
  });
});
