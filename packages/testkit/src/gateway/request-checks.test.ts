/**
 * The gateways refuse what the real endpoints refuse, in each dialect's error shape, without using a
 * turn, and record the refusal: these are the client bugs an adapter test should catch.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { startFakeGateway } from "./index.ts";
import type { Dialect, FakeGateway } from "./types.ts";

const open: FakeGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((gateway) => gateway.close()));
});

async function start(dialect: Dialect, requireApiKey?: string): Promise<FakeGateway> {
  const gateway = await startFakeGateway({
    dialect,
    script: [{ text: "unused" }],
    requireApiKey,
  });
  open.push(gateway);
  return gateway;
}

const PATHS: Record<Dialect, string> = {
  openai: "/v1/chat/completions",
  responses: "/v1/responses",
  anthropic: "/v1/messages",
  gemini: "/v1beta/models/gemini-test:generateContent",
};
const JSON_HEADERS = { "content-type": "application/json", "anthropic-version": "2023-06-01" };

async function post(gateway: FakeGateway, body: unknown, init: { path?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(gateway.origin + (init.path ?? PATHS[gateway.dialect]), {
    method: "POST",
    headers: { ...JSON_HEADERS, ...init.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, retry: response.headers.get("x-should-retry"), body: (await response.json()) as Record<string, any> };
}

/** The message inside each dialect's error shape, checking the shape on the way. */
function errorMessage(dialect: Dialect, body: Record<string, any>): string {
  const error = body.error as Record<string, unknown>;
  if (dialect === "openai" || dialect === "responses") expect(Object.keys(error).sort()).toEqual(["code", "message", "param", "type"]);
  if (dialect === "anthropic") expect([body.type, typeof error.type]).toEqual(["error", "string"]);
  if (dialect === "gemini") expect([typeof error.code, typeof error.status]).toEqual(["number", "string"]);
  expect(typeof error.message).toBe("string");
  return error.message as string;
}

const user = (text: string) => ({ role: "user", content: text });

const BAD: Record<Dialect, Array<[string, unknown, RegExp]>> = {
  openai: [
    ["missing model", { messages: [user("hi")] }, /model/],
    ["empty messages", { model: "m", messages: [] }, /messages/],
    [
      "arguments sent as an object",
      {
        model: "m",
        messages: [
          user("hi"),
          { role: "assistant", tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: { a: 1 } } }] },
          { role: "tool", tool_call_id: "call_1", content: "x" },
        ],
      },
      /arguments/,
    ],
    [
      "tool message for an unknown id",
      { model: "m", messages: [user("hi"), { role: "tool", tool_call_id: "call_nope", content: "x" }] },
      /call_nope/,
    ],
    [
      "tool call left unanswered",
      {
        model: "m",
        messages: [
          user("hi"),
          { role: "assistant", tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }] },
          user("and?"),
        ],
      },
      /call_1/,
    ],
    [
      "tool name with a slash",
      { model: "m", messages: [user("hi")], tools: [{ type: "function", function: { name: "fs/read", parameters: {} } }] },
      /fs\/read/,
    ],
  ],
  responses: [
    ["missing input", { model: "m" }, /'input'/],
    ["chat messages instead of input", { model: "m", messages: [user("hi")] }, /Unsupported parameter: 'messages'/],
    [
      "arguments sent as an object",
      {
        model: "m",
        input: [
          user("hi"),
          { type: "function_call", call_id: "call_1", name: "f", arguments: { a: 1 } },
          { type: "function_call_output", call_id: "call_1", output: "x" },
        ],
      },
      /arguments/,
    ],
    [
      "output for an unknown call",
      { model: "m", input: [user("hi"), { type: "function_call_output", call_id: "call_nope", output: "x" }] },
      /call_nope/,
    ],
    [
      "call left unanswered",
      { model: "m", input: [user("hi"), { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" }, user("and?")] },
      /No tool output found for function call call_1/,
    ],
    [
      "input_text in an assistant message",
      { model: "m", input: [{ role: "assistant", content: [{ type: "input_text", text: "x" }] }, user("hi")] },
      /'output_text'/,
    ],
    [
      "chat completions' nested tool_choice",
      { model: "m", input: "hi", tool_choice: { type: "function", function: { name: "f" } } },
      /tool_choice.name/,
    ],
    [
      "a json_schema format without a schema",
      { model: "m", input: "hi", text: { format: { type: "json_schema", name: "answer" } } },
      /text.format.schema/,
    ],
    [
      "a reasoning item this gateway never issued",
      { model: "m", input: [{ type: "reasoning", id: "rs_forged", summary: [] }, user("hi")] },
      /rs_forged/,
    ],
  ],
  anthropic: [
    ["missing max_tokens", { model: "m", messages: [user("hi")] }, /max_tokens/],
    ["system role in messages", { model: "m", max_tokens: 10, messages: [{ role: "system", content: "x" }, user("hi")] }, /system/],
    [
      "tool_result for an unknown id",
      {
        model: "m",
        max_tokens: 10,
        messages: [
          user("hi"),
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "f", input: {} }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "x" }] },
        ],
      },
      /toolu_2/,
    ],
    [
      "tool_use left unanswered",
      {
        model: "m",
        max_tokens: 10,
        messages: [user("hi"), { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "f", input: {} }] }, user("and?")],
      },
      /toolu_1/,
    ],
    [
      "tool_use input as a string",
      {
        model: "m",
        max_tokens: 10,
        messages: [user("hi"), { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "f", input: "{}" }] }],
      },
      /input/,
    ],
    ["tool without input_schema", { model: "m", max_tokens: 10, messages: [user("hi")], tools: [{ name: "f" }] }, /input_schema/],
  ],
  gemini: [
    ["empty contents", { contents: [] }, /contents/],
    ["empty parts", { contents: [{ role: "user", parts: [] }] }, /parts/],
    ["bad role", { contents: [{ role: "assistant", parts: [{ text: "x" }] }] }, /role/],
    [
      "function responses not matching the calls",
      {
        contents: [
          { role: "user", parts: [{ text: "hi" }] },
          { role: "model", parts: [{ functionCall: { name: "f", args: {} } }, { functionCall: { name: "g", args: {} } }] },
          { role: "user", parts: [{ functionResponse: { name: "f", response: { ok: true } } }] },
        ],
      },
      /number of function response parts/,
    ],
    [
      "function response for another function",
      {
        contents: [
          { role: "user", parts: [{ text: "hi" }] },
          { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] },
          { role: "user", parts: [{ functionResponse: { name: "g", response: {} } }] },
        ],
      },
      /"g"/,
    ],
    [
      "function name with a slash",
      { contents: [user("hi")].map(() => ({ parts: [{ text: "hi" }] })), tools: [{ functionDeclarations: [{ name: "fs/read" }] }] },
      /fs\/read/,
    ],
  ],
};

for (const dialect of ["openai", "responses", "anthropic", "gemini"] as const) {
  describe(`${dialect} request checks`, () => {
    for (const [name, body, pattern] of BAD[dialect]) {
      test(`400 for ${name}; no turn used; recorded as refused`, async () => {
        const gateway = await start(dialect);
        const response = await post(gateway, body);
        expect(response.status).toBe(400);
        expect(errorMessage(dialect, response.body)).toMatch(pattern);
        expect(gateway.remaining()).toBe(1);
        expect(gateway.requests[0]?.rejected).toMatchObject({ status: 400 });
      });
    }

    test("400 for a body that is not JSON", async () => {
      const gateway = await start(dialect);
      const response = await post(gateway, "{not json");
      expect(response.status).toBe(400);
      expect(errorMessage(dialect, response.body)).toMatch(/not valid JSON/);
      expect(gateway.requests[0]?.body).toBe("{not json");
    });

    test("404 in the dialect's shape for an unknown path, naming the endpoints served", async () => {
      const gateway = await start(dialect);
      const response = await post(gateway, {}, { path: "/chat/completions/v2" });
      expect(response.status).toBe(404);
      expect(errorMessage(dialect, response.body)).toMatch(/no endpoint POST \/chat\/completions\/v2/);
      expect(response.retry).toBe("false");
      expect(gateway.requests[0]).toMatchObject({ path: "/chat/completions/v2", rejected: { status: 404 } });
    });

    test("requireApiKey: 401 without or with a wrong key, answered with the right one", async () => {
      const gateway = await start(dialect, "right-key");
      const valid =
        dialect === "openai"
          ? { model: "m", messages: [user("hi")] }
          : dialect === "responses"
            ? { model: "m", input: "hi" }
            : dialect === "anthropic"
              ? { model: "m", max_tokens: 5, messages: [user("hi")] }
              : { contents: [{ parts: [{ text: "hi" }] }] };
      const keyHeader = (key: string): Record<string, string> =>
        dialect === "openai" || dialect === "responses"
          ? { authorization: `Bearer ${key}` }
          : dialect === "anthropic"
            ? { "x-api-key": key }
            : { "x-goog-api-key": key };
      const none = await post(gateway, valid);
      expect(none.status).toBe(401);
      errorMessage(dialect, none.body);
      expect((await post(gateway, valid, { headers: keyHeader("wrong-key") })).status).toBe(401);
      expect((await post(gateway, valid, { headers: keyHeader("right-key") })).status).toBe(200);
      expect(gateway.requests.map((request) => request.hasAuth)).toEqual([false, true, true]);
      expect(JSON.stringify(gateway.requests)).not.toMatch(/right-key|wrong-key/);
    });
  });
}

test("gemini accepts the key as a query parameter, which is never recorded", async () => {
  const gateway = await start("gemini", "query-key");
  const response = await post(gateway, { contents: [{ parts: [{ text: "hi" }] }] }, { path: `${PATHS.gemini}?key=query-key` });
  expect(response.status).toBe(200);
  expect(gateway.requests[0]).toMatchObject({ hasAuth: true, path: PATHS.gemini });
  expect(JSON.stringify(gateway.requests)).not.toContain("query-key");
});
