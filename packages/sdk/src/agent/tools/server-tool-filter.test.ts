/**
 * A server's tool filter (`mcpServers.X.tools`) against a real stdio MCP server (the testkit's fake server):
 * the tools it leaves out are not offered to the model, and a call to one is refused without reaching the
 * server; `agent.listTools()` shows the same set the model sees.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { fakeServerCommand, type FakeServerCommand } from "@agentd/testkit";
import { callTools, reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { ModelRequest, ToolResultPart } from "../../model/language-model.ts";
import { createAgent } from "../create-agent.ts";
import { McpToolSet } from "./mcp-tool-set.ts";
import { compileToolFilter, toolFilters } from "./server-tool-filter.ts";

setDefaultTimeout(60_000);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function fake(): FakeServerCommand {
  const f = fakeServerCommand({
    tools: [
      { name: "read_file", text: "read {{path}}" },
      { name: "read_dir", text: "listed {{path}}" },
      { name: "write_file", text: "wrote {{path}}" },
      { name: "delete_file", text: "deleted {{path}}" },
    ],
  });
  cleanups.push(() => f.dispose());
  return f;
}

const offered = (request: ModelRequest | undefined): string[] => (request?.tools ?? []).map((t) => t.name).sort();
const lastToolResults = (request: ModelRequest): ToolResultPart[] =>
  request.messages.flatMap((m) => (m.role === "tool" ? m.content : [])).slice(-1);

describe("mcpServers.X.tools: include, less exclude", () => {
  test("compileToolFilter: names and globs; exclude wins; nothing set keeps every tool", () => {
    expect(compileToolFilter(undefined)).toBeUndefined();
    expect(compileToolFilter({})).toBeUndefined();
    expect(compileToolFilter({ exclude: [] })).toBeUndefined();
    const f = compileToolFilter({ include: ["read_*", "write_file"], exclude: ["read_dir"] })!;
    expect(["read_file", "read_dir", "write_file", "delete_file"].filter(f)).toEqual(["read_file", "write_file"]);
    const none = compileToolFilter({ include: [] })!;
    expect(none("read_file")).toBe(false);
  });

  test("a real server's tools left out are neither offered to the model nor callable", async () => {
    const f = fake();
    let refused: ToolResultPart | undefined;
    const model = scriptedModel([
      callTools([["files__delete_file", { path: "/etc/passwd" }]]),
      (request) => {
        refused = lastToolResults(request)[0];
        return callTools([["files__read_file", { path: "/a" }]]);
      },
      (request) => reply(`got: ${lastToolResults(request)[0]?.output ?? "?"}`),
    ]);
    const agent = createAgent({
      model,
      mcpServers: { files: { ...f.config, tools: { include: ["read_*", "delete_file"], exclude: ["read_dir", "delete_*"] } } },
    });
    cleanups.push(() => agent.close());
    await agent.connect();

    expect((await agent.listTools()).map((t) => t.name).sort()).toEqual(["files/read_file"]);
    const result = await agent.run("tidy up", { runId: "run-filter" });
    expect(offered(model.requests[0])).toEqual(["files__read_file"]);
    expect(refused?.isError).toBe(true);
    expect(refused?.output).toContain('unknown tool "files__delete_file". Available tools: files__read_file.');
    expect(result.text).toContain("read /a");
    // The tool set refuses it too, for a caller that names it directly (qualified), as the loop never would.
    const direct = new McpToolSet(agent.clients, undefined, {
      filters: toolFilters({ files: { command: "x", tools: { exclude: ["delete_*"] } } }),
    });
    const ctx = { runId: "run-direct", signal: new AbortController().signal };
    expect(await direct.call("files/delete_file", { path: "/b" }, ctx)).toEqual({
      text: "Tool 'files/delete_file' is not available to this agent (its server's tool filter leaves it out); do not call it again.",
      isError: true,
    });
    // The refused call never reached the server.
    const calls = f.recordedRequests().filter((r) => r.method === "tools/call");
    expect(calls.map((r) => (r.params as { name: string }).name)).toEqual(["read_file"]);
  });
});
