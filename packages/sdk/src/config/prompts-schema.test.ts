/** The `prompts` block of agentd.json: its shape, placeholders checked against the arguments, one line per mistake. */
import { describe, expect, test } from "bun:test";
import { agentOptionsFromConfig } from "../agent/from-config/from-config.ts";
import { parseConfig } from "./load.ts";

const message = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected a throw");
};

const review = {
  description: "Review a pull request",
  arguments: [{ name: "pr", required: true, completions: ["41", "42"] }, { name: "focus" }],
  text: "Review {{pr}} ({{ focus }})",
};

describe("prompts", () => {
  test("a text prompt and a messages prompt reach the agent's options as configured", () => {
    const config = parseConfig(
      {
        prompts: {
          review,
          chat: {
            description: "d",
            messages: [
              { role: "user", text: "hi" },
              { role: "assistant", text: "hello" },
            ],
          },
        },
      },
      {},
    );
    expect(config.prompts?.review).toEqual(review);
    expect(agentOptionsFromConfig(config).prompts).toEqual(config.prompts);
    // A server entry's prompts switch is accepted on both kinds.
    expect(
      parseConfig({ mcpServers: { a: { command: "x", prompts: false }, b: { url: "https://t.example/mcp", prompts: true } } }, {})
        .mcpServers?.a,
    ).toMatchObject({ prompts: false });
  });

  test("mistakes are one line naming the field", () => {
    expect(message(() => parseConfig({ prompts: { r: { text: "x" } } }, {}))).toBe("config.prompts.r.description: required, but missing");
    expect(message(() => parseConfig({ prompts: { r: { description: "d" } } }, {}))).toBe(
      'config.prompts.r.text: give either "text" (one user message) or "messages", not both or neither',
    );
    expect(
      message(() => parseConfig({ prompts: { r: { description: "d", text: "a", messages: [{ role: "user", text: "b" }] } } }, {})),
    ).toStartWith("config.prompts.r.messages: give either");
    expect(message(() => parseConfig({ prompts: { r: { ...review, text: "Review {{pull}}" } } }, {}))).toBe(
      "config.prompts.r.text: placeholder {{pull}} names no declared argument; declared: {{pr}}, {{focus}}",
    );
    expect(message(() => parseConfig({ prompts: { r: { description: "d", messages: [{ role: "user", text: "{{x}}" }] } } }, {}))).toBe(
      "config.prompts.r.messages: placeholder {{x}} names no declared argument; declared: none (add it to arguments)",
    );
    expect(message(() => parseConfig({ prompts: { r: { ...review, text: "Review {{pr}" } } }, {}))).toBe(
      "config.prompts.r.text: malformed placeholder (write {{name}} for an argument)",
    );
    expect(message(() => parseConfig({ prompts: { r: { ...review, arguments: [{ name: "pr" }, { name: "pr" }] } } }, {}))).toBe(
      'config.prompts.r.arguments: argument "pr" is declared twice',
    );
    expect(message(() => parseConfig({ prompts: { r: { description: "d", messages: [{ role: "system", text: "x" }] } } }, {}))).toStartWith(
      'config.prompts.r.messages[0].role: "user" or "assistant"',
    );
    expect(message(() => parseConfig({ prompts: { "a b": { description: "d", text: "x" } } }, {}))).toContain(
      "prompt names use letters, digits, _ . -",
    );
    expect(message(() => parseConfig({ prompts: { r: { ...review, arguments: [{ name: "pr", completion: ["1"] }] } } }, {}))).toStartWith(
      "config.prompts.r.arguments[0].completion:",
    );
  });
});
