/**
 * Served prompts on the A2A surface: the card lists one skill per prompt beside "run", and a message whose
 * data part names a prompt runs that prompt's expansion (checked as `prompts/get` checks it).
 */
import { afterEach, expect, test } from "bun:test";
import { serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";

const PROMPTS = {
  review: {
    title: "Review a pull request",
    description: "Review one pull request",
    arguments: [{ name: "pr", required: true, completions: ["42"] }, { name: "focus" }],
    text: "Review pull request {{pr}} focusing on {{focus}}",
  },
};

let served: ServedAgent | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const rpc = async (base: string, method: string, params: unknown) => {
  const r = await fetch(`${base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await r.json()) as { result?: any; error?: { code: number; message: string } };
};
const dataMessage = (data: unknown) => ({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ data }] } });

test("the card lists a skill per served prompt, and a data part naming the prompt runs its expansion", async () => {
  served = await serveA2aAgent({ agent: { prompts: PROMPTS } });
  const card = (await (await fetch(`${served.base}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } })).json()) as {
    skills: Array<{ id: string; name: string; description: string; examples?: string[] }>;
  };
  expect(card.skills.map((s) => s.id)).toEqual(["run", "prompt:review"]);
  const skill = card.skills[1]!;
  expect(skill.name).toBe("Review a pull request");
  expect(skill.description).toContain('{"prompt": "review"');
  expect(JSON.parse(skill.examples![0]!)).toEqual({ prompt: "review", arguments: { pr: "42" } });

  const sent = await rpc(served.base, "SendMessage", dataMessage({ prompt: "review", arguments: { pr: "7", focus: "tests" } }));
  expect(sent.result?.task?.status?.state).toBe("TASK_STATE_COMPLETED");
  const text = sent.result.task.artifacts.flatMap((a: { parts: Array<{ text?: string }> }) => a.parts.map((p) => p.text ?? "")).join("");
  expect(text).toBe("echo: Review pull request 7 focusing on tests");
});

test("an unknown prompt, a missing required argument, an undeclared one or a non-string value is InvalidParams; nothing runs", async () => {
  served = await serveA2aAgent({ agent: { prompts: PROMPTS } });
  const cases = [
    [{ prompt: "deploy" }, "no prompt named deploy"],
    [{ prompt: "review", arguments: {} }, "missing the required argument pr"],
    [{ prompt: "review", arguments: { pr: "1", colour: "red" } }, "has no argument colour"],
    [{ prompt: "review", arguments: { pr: 1 } }, "must be an object of strings"],
  ] as const;
  for (const [data, message] of cases) {
    const r = await rpc(served.base, "SendMessage", dataMessage(data));
    expect(r.error?.code).toBe(-32602);
    expect(r.error?.message).toContain(message);
  }
  expect(served.model.requests.length).toBe(0);
});

test("without served prompts the card has only run, and a data part is run as its JSON text", async () => {
  served = await serveA2aAgent();
  const card = (await (await fetch(`${served.base}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } })).json()) as {
    skills: Array<{ id: string }>;
  };
  expect(card.skills.map((s) => s.id)).toEqual(["run"]);
  const sent = await rpc(served.base, "SendMessage", dataMessage({ prompt: "review" }));
  expect(sent.result?.task?.status?.state).toBe("TASK_STATE_COMPLETED");
});
