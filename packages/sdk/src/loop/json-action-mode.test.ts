import { describe, expect, test } from "bun:test";
import { memoryToolSet } from "./__fixtures__/memory-tools.ts";
import { reply, scriptedModel } from "./__fixtures__/scripted-model.ts";
import { ACTION_CORRECTION, MAX_ACTION_REASKS } from "./json-action-mode.ts";
import type { ModelMessage } from "../model/language-model.ts";
import { runLoop } from "./run-loop.ts";

const contentOf = (m: ModelMessage | undefined): string =>
  m === undefined ? "" : typeof m.content === "string" ? m.content : JSON.stringify(m.content);

const files = () =>
  memoryToolSet([
    {
      name: "fs/read",
      description: "Read a file",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      run: (a) => `contents of ${a.path}`,
    },
    { name: "fs/delete", run: () => "deleted" },
  ]);

describe("JSON-action mode (models without native tools)", () => {
  test("tools are described in the prompt; actions are found in prose; results come back fenced", async () => {
    const tools = files();
    const model = scriptedModel(
      [
        reply('Let me look.\n```json\n{"action":"tool","tool":"fs/read","arguments":{"path":"a.txt"}}\n```'),
        reply('{"action": "final", "result": "a.txt says hello"}'),
      ],
      { supportsTools: false },
    );
    const r = await runLoop({ model, tools, input: "what is in a.txt?", runId: "j1", scope: { allow: ["fs/read"] } });
    expect(r).toMatchObject({ text: "a.txt says hello", turns: 2, toolCalls: 1, stopReason: "final" });
    expect(tools.calls.map((c) => [c.name, c.args])).toEqual([["fs/read", { path: "a.txt" }]]);
    const first = model.requests[0];
    expect(first?.tools).toBeUndefined();
    const system = contentOf(first?.messages[0]);
    expect(system).toContain('"action":"tool"');
    expect(system).toContain("- fs/read: Read a file");
    expect(system).not.toContain("fs/delete"); // out of scope: not described
    const observation = contentOf(model.requests[1]?.messages.at(-1));
    expect(model.requests[1]?.messages.at(-1)?.role).toBe("user");
    expect(observation).toMatch(/<tool-output-([a-z2-7]{20}) tool="fs\/read" untrusted="true">\ncontents of a\.txt\n<\/tool-output-\1>/);
  });

  test("an unparseable reply is re-asked with a correction, then the protocol resumes", async () => {
    const model = scriptedModel(
      [
        reply("I think I should read the file."),
        reply('{"action":"tool","tool":"fs/read","arguments":{"path":"b"}}'),
        reply('{"action":"final","result":"ok"}'),
      ],
      { supportsTools: false },
    );
    const r = await runLoop({ model, tools: files(), input: "go", runId: "j2" });
    expect(r.text).toBe("ok");
    expect(r.turns).toBe(3);
    expect(contentOf(model.requests[1]?.messages.at(-1))).toBe(ACTION_CORRECTION);
  });

  test("after the bounded re-asks, a reply without an action is the final text answer", async () => {
    const replies = ["plain answer 1", "plain answer 2", "the answer is 42"];
    const model = scriptedModel(
      replies.map((t) => reply(t)),
      { supportsTools: false },
    );
    const r = await runLoop({ model, tools: files(), input: "go", runId: "j3" });
    expect(MAX_ACTION_REASKS).toBe(2);
    expect(r.text).toBe("the answer is 42");
    expect(r.turns).toBe(3);
    expect(r.toolCalls).toBe(0);
  });

  test("tool-domain errors (invalid arguments, out of scope) are observations here too", async () => {
    const tools = files();
    const model = scriptedModel(
      [
        reply('{"action":"tool","tool":"fs/read","arguments":{"path":5}}'),
        reply('{"action":"tool","tool":"fs/delete","arguments":{}}'),
        reply('{"action":"final","result":"gave up politely"}'),
      ],
      { supportsTools: false },
    );
    const r = await runLoop({ model, tools, input: "go", runId: "j4", scope: { allow: ["fs/read"] } });
    expect(r.text).toBe("gave up politely");
    expect(tools.calls).toEqual([]);
    expect(contentOf(model.requests[1]?.messages.at(-1))).toContain("$.path: expected string, got integer");
    expect(contentOf(model.requests[2]?.messages.at(-1))).toContain("not allowed in this run");
  });

  test("structured output: a non-string final result is validated as JSON", async () => {
    const schema = { type: "object", properties: { count: { type: "integer" } }, required: ["count"] };
    const model = scriptedModel([reply('{"action":"final","result":{"count":"many"}}'), reply('{"action":"final","result":{"count":3}}')], {
      supportsTools: false,
    });
    const r = await runLoop({ model, tools: files(), input: "count", runId: "j5", outputSchema: schema });
    expect(r.output).toEqual({ count: 3 });
    expect(r.text).toBe('{"count":3}');
    const correction = contentOf(model.requests[1]?.messages.at(-1));
    expect(correction).toContain("$.count: expected integer, got string");
    expect(correction).toContain('{"action":"final","result":<the corrected JSON value>}');
  });
});
