/** The `a2aAgents` block of agentd.json: its shape, `${VAR}` in headers, and one line per mistake. */
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

describe("a2aAgents", () => {
  test("an entry with a URL and headers, with the token from the environment, reaches the agent's options", () => {
    const config = parseConfig(
      {
        a2aAgents: {
          research: {
            url: "https://agents.example/research",
            headers: { Authorization: "Bearer ${RESEARCH_TOKEN}" },
            binding: "HTTP+JSON",
            required: false,
          },
        },
      },
      { RESEARCH_TOKEN: "t0k" },
    );
    expect(config.a2aAgents?.research).toEqual({
      url: "https://agents.example/research",
      headers: { Authorization: "Bearer t0k" },
      binding: "HTTP+JSON",
      required: false,
    });
    expect(agentOptionsFromConfig(config).a2aAgents).toEqual(config.a2aAgents);
  });

  test("mistakes are one line naming the field", () => {
    expect(message(() => parseConfig({ a2aAgents: { r: { url: "not a url" } } }, {}))).toBe(
      "config.a2aAgents.r.url: an http(s) URL such as https://agents.example/research",
    );
    expect(message(() => parseConfig({ a2aAgents: { r: { url: "https://a.example", binding: "GRPC" } } }, {}))).toStartWith(
      'config.a2aAgents.r.binding: "JSONRPC" or "HTTP+JSON"',
    );
    expect(message(() => parseConfig({ a2aAgents: { r: { url: "https://a.example", token: "x" } } }, {}))).toStartWith(
      "config.a2aAgents.r.token:",
    );
    expect(message(() => parseConfig({ a2aAgents: { "bad name": { url: "https://a.example" } } }, {}))).toContain(
      "server names use letters, digits, _ . -",
    );
    expect(message(() => parseConfig({ a2aAgents: { r: { url: "https://a.example", headers: { A: "${NOPE}" } } } }, {}))).toBe(
      "config.a2aAgents.r.headers.A: environment variable NOPE is not set (referenced as ${NOPE})",
    );
  });
});
