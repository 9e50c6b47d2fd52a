import { describe, expect, test } from "bun:test";
import {
  extractAction,
  extractJsonObjects,
  jsonActionSystemPrompt,
  JSON_ACTION_PROMPT,
  renderJsonAction,
  renderToolResultForJsonActions,
  renderToolsForJsonActions,
  toJsonAction,
} from "./json-action.ts";

const tool = (t: string, args: Record<string, unknown>) => ({ action: "tool", tool: t, arguments: args });

describe("extractAction", () => {
  const cases: Array<[string, string, unknown]> = [
    ["bare tool action", '{"action":"tool","tool":"fs/read","arguments":{"path":"/a"}}', tool("fs/read", { path: "/a" })],
    ["bare final action", '{"action":"final","result":"done"}', { action: "final", result: "done" }],
    [
      "prose before and after",
      'Sure! I will read it.\n{"action":"tool","tool":"fs/read","arguments":{"path":"x"}}\nLet me know.',
      tool("fs/read", { path: "x" }),
    ],
    ["json code fence", 'Here:\n```json\n{"action":"final","result":{"count":3}}\n```\n', { action: "final", result: { count: 3 } }],
    [
      "braces inside strings",
      '{"action":"final","result":"use {x} and } and {{ here"}',
      { action: "final", result: "use {x} and } and {{ here" },
    ],
    [
      "escaped quotes and backslashes inside strings",
      '{"action":"final","result":"she said \\"}\\" then \\\\"}',
      { action: "final", result: 'she said "}" then \\' },
    ],
    [
      "prose braces before the action",
      'In math {a, b} is a set; in code `if (x) { y }`. {"action":"final","result":1}',
      { action: "final", result: 1 },
    ],
    [
      "non-action object first, action second",
      'Data: {"temperature": 21}. Decision: {"action":"tool","tool":"w/get","arguments":{}}',
      tool("w/get", {}),
    ],
    ["two actions: the first wins", '{"action":"tool","tool":"a","arguments":{}} {"action":"final","result":"b"}', tool("a", {})],
    [
      "nested objects in arguments",
      '{"action":"tool","tool":"db/q","arguments":{"filter":{"and":[{"x":{"gt":1}},{"y":null}]}}}',
      tool("db/q", { filter: { and: [{ x: { gt: 1 } }, { y: null }] } }),
    ],
    ["unicode and emoji", 'Voilà 🚀 {"action":"final","result":"日本語 ✓ \\u00e9"}', { action: "final", result: "日本語 ✓ é" }],
    ["truncated action is skipped", 'Calling: {"action":"tool","tool":"a","arguments":{"q":"hel', undefined],
    [
      "truncated object, then a complete one",
      '{"action":"tool","tool":"a","arguments":{"q":1}\n\nOops, again: {"action":"final","result":"ok"}',
      { action: "final", result: "ok" },
    ],
    [
      "unbalanced prose brace before the action",
      'I think { this is open. {"action":"final","result":"fine"}',
      { action: "final", result: "fine" },
    ],
    [
      "odd quote in prose does not derail",
      'I think { the 12" pipe fits. {"action":"final","result":"ok"}',
      { action: "final", result: "ok" },
    ],
    [
      "an unterminated string in a prose object before the action",
      '{ "x": "unterminated {"action":"final","result":"ok"}',
      { action: "final", result: "ok" },
    ],
    [
      "raw newline inside a string is repaired",
      '{"action":"final","result":"line one\nline two"}',
      { action: "final", result: "line one\nline two" },
    ],
    ["arguments as a JSON string", '{"action":"tool","tool":"t","arguments":"{\\"n\\":2}"}', tool("t", { n: 2 })],
    ["args alias and missing arguments", '{"action":"tool","tool":"t","args":{"n":1}}', tool("t", { n: 1 })],
    ["missing arguments means none", '{"action":"tool","tool":"t"}', tool("t", {})],
    ["action name case and spaces", '{"action":" Final ","result":null}', { action: "final", result: null }],
    ["tool without a name is not an action", '{"action":"tool","arguments":{}}', undefined],
    ["final without result is not an action", '{"action":"final","answer":"x"}', undefined],
    ["arguments that are not an object", '{"action":"tool","tool":"t","arguments":[1,2]}', undefined],
    ["unknown action kind", '{"action":"think","thought":"hmm"}', undefined],
    ["no JSON at all", "I don't know what to do {here}.", undefined],
    ["empty text", "", undefined],
    ["action nested in an invalid outer candidate", '{oops {"action":"final","result":"inner"} }', { action: "final", result: "inner" }],
    [
      "fence with a language tag and trailing prose with braces",
      '```jsonc\n{"action":"tool","tool":"x/y","arguments":{"s":"a}b"}}\n```\nThen I will {maybe} continue.',
      tool("x/y", { s: "a}b" }),
    ],
  ];
  for (const [name, text, expected] of cases) test(name, () => expect(extractAction(text)).toEqual(expected as never));
});

describe("extractJsonObjects", () => {
  test("finds every top-level object in order, not their children", () => {
    expect(extractJsonObjects('a {"x":{"y":1}} b {"z":2} c [1,2] {"w":[{"v":3}]}')).toEqual([{ x: { y: 1 } }, { z: 2 }, { w: [{ v: 3 }] }]);
  });
  test("JSON arrays and scalars are not objects", () => {
    expect(extractJsonObjects('[{"a":1}]')).toEqual([{ a: 1 }]);
    expect(extractJsonObjects("42 true null")).toEqual([]);
  });
  test("pathological unmatched braces finish quickly and find the object after them", () => {
    const text = `${"{".repeat(50_000)} {"ok":true}`;
    const t0 = performance.now();
    expect(extractJsonObjects(text)).toEqual([{ ok: true }]);
    // Generous bound: quadratic scanning of this input would take minutes.
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
  test("alternating quotes and braces do not hide a later object", () => {
    expect(extractJsonObjects(`${'{"'.repeat(2_000)} {"a":1}`)).toEqual([{ a: 1 }]);
  });
});

describe("rendering", () => {
  test("the prompt names both action shapes", () => {
    expect(JSON_ACTION_PROMPT).toContain('"action":"tool"');
    expect(JSON_ACTION_PROMPT).toContain('"action":"final"');
  });
  test("tools are listed with their schemas", () => {
    const text = renderToolsForJsonActions([
      { name: "fs/read", description: "Read a file", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
    ]);
    expect(text).toContain("- fs/read: Read a file");
    expect(text).toContain('{"type":"object","properties":{"path":{"type":"string"}}}');
    expect(renderToolsForJsonActions([])).toContain("No tools");
    expect(jsonActionSystemPrompt([])).toStartWith(JSON_ACTION_PROMPT);
  });
  test("a rendered action round-trips through the extractor", () => {
    const a = { action: "tool", tool: "t", arguments: { q: '{"}' } } as const;
    expect(extractAction(`ok ${renderJsonAction(a)}`)).toEqual(a);
    expect(toJsonAction({ action: "final", result: [1] })).toEqual({ action: "final", result: [1] });
  });
  test("tool results are labelled, errors marked", () => {
    expect(renderToolResultForJsonActions({ toolName: "t", output: "boom", isError: true })).toBe('Result of tool "t" (error):\nboom');
  });
});
