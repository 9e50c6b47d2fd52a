import { describe, expect, test } from "bun:test";
import { AgentdError } from "../wire/errors.ts";
import { parseConfig } from "./load.ts";
import { closest } from "./server-entry.ts";

/** The one-line error for an agentd.json whose only server is `entry`. */
function error(entry: unknown): string {
  try {
    parseConfig({ mcpServers: { x: entry } }, { TOK: "sk-SECRET-1" }, "agentd.json");
  } catch (e) {
    expect(AgentdError.isInstance(e) && e.code).toBe("E_CONFIG_INVALID");
    return (e as Error).message;
  }
  throw new Error("expected a config error");
}

const SSE = 'the 2024-11-05 HTTP+SSE transport is not supported: point "url" at the server\'s Streamable HTTP endpoint';

describe("mcpServers entries: the error names the field and what to do", () => {
  test('"type": "sse" and Cline\'s "transport"/"transportType": "sse" are refused as the old HTTP+SSE transport', () => {
    expect(error({ type: "sse", url: "https://tools.example/sse" })).toStartWith(`agentd.json.mcpServers.x.type: ${SSE}`);
    expect(error({ type: "SSE", url: "https://tools.example/sse" })).toStartWith(`agentd.json.mcpServers.x.type: ${SSE}`);
    expect(error({ transport: "sse", url: "https://tools.example/sse" })).toStartWith(`agentd.json.mcpServers.x.transport: ${SSE}`);
    expect(error({ transportType: "sse", url: "https://tools.example/sse" })).toStartWith(`agentd.json.mcpServers.x.transportType: ${SSE}`);
    expect(error({ transport: "stdio", command: "x" })).toBe(
      'agentd.json.mcpServers.x.transport: unknown field: agentd takes the transport from "command" (stdio) or "url" (Streamable HTTP); remove it',
    );
  });

  test('"type" accepts "stdio" and the spellings of Streamable HTTP ("http", "streamable-http", Cline\'s "streamableHttp"); anything else is named with a close match', () => {
    const ok = (entry: unknown) => parseConfig({ mcpServers: { x: entry } }, {}).mcpServers?.x;
    expect(ok({ type: "stdio", command: "srv" })).toEqual({ type: "stdio", command: "srv" });
    expect(ok({ type: "http", url: "https://t.example/mcp" })).toEqual({ type: "http", url: "https://t.example/mcp" });
    expect(ok({ type: "streamable-http", url: "https://t.example/mcp" })).toMatchObject({ type: "streamable-http" });
    expect(ok({ type: "streamableHttp", url: "https://t.example/mcp" })).toMatchObject({ type: "streamableHttp" });
    expect(error({ type: "streamable_http", url: "https://t.example/mcp" })).toBe(
      'agentd.json.mcpServers.x.type: one of "stdio", "http", "streamable-http", "streamableHttp" (did you mean "streamable-http"?)',
    );
    expect(error({ type: "websocket", url: "https://t.example/mcp" })).toBe(
      'agentd.json.mcpServers.x.type: one of "stdio", "http", "streamable-http", "streamableHttp"',
    );
    expect(error({ type: "stdio", url: "https://t.example/mcp" })).toContain('mcpServers.x.type: "stdio" runs a "command"');
    expect(error({ type: "http", command: "srv" })).toContain('mcpServers.x.type: "http" needs a "url"');
    expect(error({ type: "streamableHttp", command: "srv" })).toContain('mcpServers.x.type: "streamableHttp" needs a "url"');
  });

  test("an unknown field is named, with the close match when there is one", () => {
    expect(error({ command: "srv", arg: ["a"] })).toBe('agentd.json.mcpServers.x.arg: unknown field; did you mean "args"?');
    expect(error({ command: "srv", enviroment: {} })).toBe(
      'agentd.json.mcpServers.x.enviroment: unknown field (a server takes "type", "command", "args", "env", "cwd", "disabled", "required", "versionNegotiation", "sampling", "prompts", "timeout", "maxTotalTimeout", "tools")',
    );
    expect(error({ command: "srv", Env: {} })).toBe('agentd.json.mcpServers.x.Env: unknown field; did you mean "env"?');
    expect(error({ url: "https://t.example/mcp", header: {} })).toBe(
      'agentd.json.mcpServers.x.header: unknown field; did you mean "headers"?',
    );
    expect(error({ command: "srv", headers: {} })).toBe(
      "agentd.json.mcpServers.x.headers: unknown field for a stdio server (it is for a url)",
    );
    expect(error({ url: "https://t.example/mcp", args: [] })).toBe(
      "agentd.json.mcpServers.x.args: unknown field for a Streamable HTTP server (it is for a command)",
    );
  });

  test("other tools' settings say what agentd uses instead", () => {
    expect(error({ command: "srv", autoApprove: ["read"] })).toBe(
      'agentd.json.mcpServers.x.autoApprove: not an agentd setting (agentd asks no one before a tool call): limit tools with "scope.allow" globs, or remove it',
    );
    expect(error({ command: "srv", alwaysAllow: [] })).toContain("mcpServers.x.alwaysAllow: not an agentd setting");
    // Cline's `timeout` is seconds as a bare number; agentd's own `timeout` wants a unit, and says so.
    expect(error({ url: "https://t.example/mcp", timeout: 60 })).toStartWith("agentd.json.mcpServers.x.timeout: a bare number has no unit");
    expect(error({ command: "srv", envFile: ".env" })).toContain(
      'mcpServers.x.envFile: not read by agentd: list the variables under "env"',
    );
  });

  test("neither or both of command and url; and a bad value is reported at its field", () => {
    expect(error({})).toBe('agentd.json.mcpServers.x: needs "command" (a stdio server) or "url" (a Streamable HTTP server)');
    expect(error({ args: ["a"] })).toBe('agentd.json.mcpServers.x: needs "command" (a stdio server) or "url" (a Streamable HTTP server)');
    expect(error({ command: "srv", url: "https://t.example/mcp" })).toContain('mcpServers.x: has both "command" and "url"');
    expect(error({ command: 5 })).toBe("agentd.json.mcpServers.x.command: expected a string, got a number");
    expect(error({ command: "srv", args: "a b" })).toBe("agentd.json.mcpServers.x.args: expected an array, got a string");
    expect(error({ url: "not a url" })).toBe("agentd.json.mcpServers.x.url: an http(s) URL such as https://tools.example/mcp");
  });

  test("an expanded secret is never echoed", () => {
    for (const entry of [
      { type: "${TOK}", url: "https://t.example/mcp" },
      { command: "srv", "${TOK}": 1 },
      { transport: "${TOK}", url: "https://t.example/mcp" },
    ])
      expect(error(entry)).not.toContain("SECRET");
  });
});

describe("closest", () => {
  test("suggests only what is close", () => {
    expect(closest("arg", ["args", "env"])).toBe("args");
    expect(closest("cmd", ["command", "args"])).toBeUndefined();
    expect(closest("comand", ["command", "args"])).toBe("command");
    expect(closest("evn", ["env", "cwd"])).toBe("env");
    expect(closest("zzz", ["env", "cwd"])).toBeUndefined();
  });
});
