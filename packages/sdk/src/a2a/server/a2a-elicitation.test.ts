/**
 * The `operator` elicitation policy over A2A, on 127.0.0.1 with server-everything as the MCP server (a
 * child process we did not write): its tool elicits during the call, the task goes `input-required` with
 * the question and the requested schema, an operator answers with a follow-up message on the task, the
 * answer is checked against the schema and reaches the tool, and the run finishes. A user cannot answer;
 * a run not served over A2A is declined with a log line.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { resolve } from "node:path";
import { memoryLogger } from "../../log.ts";
import { callTools, reply, type Step } from "../../loop/__fixtures__/scripted-model.ts";
import { serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";

setDefaultTimeout(60_000);

const EVERYTHING = resolve(import.meta.dir, "../../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const USER = "user-token-0123456789ab";
const OPS = "ops-token-0123456789abcd";
const TOOL = "everything/trigger-elicitation-request";
let s: ServedAgent | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** Call the eliciting tool, then answer with what it returned. */
const elicitThenEcho = (): Step[] =>
  Array.from({ length: 4 }, (_, i) =>
    i % 2 === 0
      ? callTools([[TOOL, {}]])
      : (req) => {
          const last = req.messages.at(-1);
          return reply(last?.role === "tool" ? last.content.map((p) => p.output).join("\n") : "no tool result");
        },
  );

async function rpc(token: string, method: string, params: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${s!.base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}), "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return res.json();
}

const message = (parts: unknown[], ids: { taskId?: string; contextId?: string } = {}) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts, ...ids },
});

async function served(logger = memoryLogger()) {
  s = await serveA2aAgent({
    steps: elicitThenEcho(),
    logger,
    http: {
      auth: {
        bearerTokens: [
          { token: USER, name: "user" },
          { token: OPS, name: "ops", role: "operator" },
        ],
      },
    },
    agent: { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } }, capabilities: { elicitation: "operator" } },
  });
  return logger;
}

test.skipIf(!Bun.file(EVERYTHING).size)(
  "a user's task asks; the user cannot answer, an operator can; a bad answer is refused and can be retried",
  async () => {
    const logger = await served();
    const asked = await rpc(USER, "SendMessage", message([{ text: "register me" }]));
    const task = asked.result.task;
    expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const [question, schema] = task.status.message.parts;
    expect(question.text).toBe("Please provide inputs for the following fields:");
    expect(schema.data.requestedSchema.required).toEqual(["name"]);
    expect(schema.data.server).toBe("everything");

    const ids = { taskId: task.id, contextId: task.contextId };
    const byUser = await rpc(USER, "SendMessage", message([{ data: { name: "Mallory" } }], ids));
    expect(byUser.error.code).toBe(-32050);
    expect(byUser.error.data[0].reason).toBe("PERMISSION_DENIED");

    const invalid = await rpc(OPS, "SendMessage", message([{ data: { email: "ada@example.com" } }], ids));
    expect(invalid.error.code).toBe(-32602);
    expect(invalid.error.message).toContain("does not satisfy the requested schema");
    const wrongContext = await rpc(OPS, "SendMessage", message([{ data: { name: "Ada" } }], { taskId: task.id, contextId: "another" }));
    expect(wrongContext.error.code).toBe(-32602);

    const answered = await rpc(OPS, "SendMessage", message([{ data: { name: "Ada Lovelace", check: true } }], ids));
    expect(answered.result.task.status.state).toBe("TASK_STATE_COMPLETED");
    const text = answered.result.task.artifacts[0].parts[0].text;
    expect(text).toContain("- Name: Ada Lovelace");
    expect(text).toContain("- Agreed to terms: true");
    expect((await rpc(USER, "GetTask", { id: task.id })).result.status.state).toBe("TASK_STATE_COMPLETED");

    const operatorLines = logger.records.filter((r) => r.event === "a2a.operator" || r.event === "a2a.operator.refused");
    expect(operatorLines.map((r) => [r.event, r.principal, r.method, r.action])).toEqual([
      ["a2a.operator.refused", "bearer:user", "answer", undefined],
      ["a2a.operator", "bearer:ops", "answer", "accept"],
    ]);
    // The answer's content is never logged.
    expect(JSON.stringify(logger.records)).not.toContain("Ada Lovelace");
  },
);

test.skipIf(!Bun.file(EVERYTHING).size)(
  "an operator declines with the word 'decline'; a run not served over A2A is declined with a log line",
  async () => {
    const logger = await served();
    const asked = await rpc(OPS, "SendMessage", message([{ text: "register me" }]));
    const task = asked.result.task;
    expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const declined = await rpc(OPS, "SendMessage", message([{ text: "decline" }], { taskId: task.id }));
    expect(declined.result.task.artifacts[0].parts[0].text).toContain("User declined");

    const direct = await s!.agent.run("register me directly");
    expect(direct.text).toContain("User declined");
    expect(logger.records.find((r) => r.event === "elicitation.declined")).toMatchObject({
      policy: "operator",
      server: "everything",
      reason: expect.stringContaining("not served over A2A"),
    });
  },
);

test.skipIf(!Bun.file(EVERYTHING).size)(
  "the wait is bounded by the run's deadline: unanswered, the question is cancelled and the task fails on the deadline",
  async () => {
    const logger = memoryLogger();
    s = await serveA2aAgent({
      steps: elicitThenEcho(),
      logger,
      operators: ["local"],
      agent: {
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
        capabilities: { elicitation: "operator" },
        limits: { deadlineMs: 2_000 },
      },
    });
    const ended = new Promise<void>((r) => s!.agent.on((e) => void (e.type === "run-end" && r())));
    const res = await fetch(`${s.base}/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: message([{ text: "register me" }]) }),
    });
    const states = await statesUntil(res, "TASK_STATE_INPUT_REQUIRED");
    expect(states.at(-1)).toBe("TASK_STATE_INPUT_REQUIRED");
    const taskId = (await rpc("", "ListTasks", {})).result.tasks[0].id;
    await ended;
    const task = (await rpc("", "GetTask", { id: taskId })).result;
    expect(task.status.state).toBe("TASK_STATE_FAILED");
    expect(task.status.message.parts[0].text).toContain("E_BUDGET_DEADLINE");
    expect(logger.records.find((r) => r.event === "elicitation.answered")).toMatchObject({ policy: "operator", action: "cancel" });
  },
);

/** Read an SSE response's task states until `last` (or the stream ends). */
async function statesUntil(res: Response, last: string): Promise<string[]> {
  const states: string[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return states;
      buffer += value;
      let i: number;
      while ((i = buffer.indexOf("\n\n")) >= 0) {
        const data = buffer
          .slice(0, i)
          .split("\n")
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5))
          .join("");
        buffer = buffer.slice(i + 2);
        if (!data) continue;
        const r = JSON.parse(data).result;
        const state = r?.task?.status?.state ?? r?.statusUpdate?.status?.state;
        if (state) states.push(state);
        if (state === last) return states;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
