import { describe, expect, test } from "bun:test";
import { getCodec, notificationSender, REVISION_TABLES, requestSender } from "./codecs.ts";
import { SUPPORTED_REVISIONS } from "./codec.ts";

const latest = getCodec("2025-11-25");
const june = getCodec("2025-06-18");
const march = getCodec("2025-03-26");

const task = { taskId: "t1", status: "working", createdAt: "2025-11-25T00:00:00Z", lastUpdatedAt: "2025-11-25T00:00:00Z", ttl: null };

describe("getCodec", () => {
  test("builds each revision's codec once and reports its flags", () => {
    for (const r of SUPPORTED_REVISIONS) {
      expect(getCodec(r)).toBe(getCodec(r));
      expect(getCodec(r).revision).toBe(r);
      expect(getCodec(r).stateful).toBe(r !== "2026-07-28");
    }
    expect([latest.batches, june.batches, march.batches]).toEqual([false, false, true]);
  });

  test("method tables: tasks only in 2025-11-25, elicitation from 2025-06-18", () => {
    for (const m of ["tasks/get", "tasks/result", "tasks/list", "tasks/cancel"]) {
      expect([latest.knowsRequest(m), june.knowsRequest(m), march.knowsRequest(m)]).toEqual([true, false, false]);
    }
    expect([
      latest.knowsRequest("elicitation/create"),
      june.knowsRequest("elicitation/create"),
      march.knowsRequest("elicitation/create"),
    ]).toEqual([true, true, false]);
    for (const n of ["notifications/tasks/status", "notifications/elicitation/complete"]) {
      expect([latest.knowsNotification(n), june.knowsNotification(n), march.knowsNotification(n)]).toEqual([true, false, false]);
    }
    for (const c of [latest, june, march]) {
      expect(c.knowsRequest("tools/call")).toBe(true);
      expect(c.knowsRequest("notifications/progress")).toBe(false); // a notification, not a request
      expect(c.knowsNotification("notifications/progress")).toBe(true);
      expect(c.knowsRequest("toString")).toBe(false); // no prototype leaks
      expect(c.knowsRequest("server/discover")).toBe(false); // 2026-07-28 only
    }
    expect(Object.keys(REVISION_TABLES["2025-11-25"].requests)).toHaveLength(20);
  });

  test("who sends what: the table tells client, server and both apart", () => {
    expect(requestSender("2025-11-25", "tools/call")).toBe("client");
    expect(requestSender("2025-11-25", "sampling/createMessage")).toBe("server");
    expect(requestSender("2025-11-25", "tasks/get")).toBe("both");
    expect(requestSender("2025-06-18", "tasks/get")).toBeUndefined();
    expect(requestSender("2025-11-25", "constructor")).toBeUndefined();
    expect(notificationSender("2025-11-25", "notifications/resources/updated")).toBe("server");
    expect(notificationSender("2025-11-25", "notifications/initialized")).toBe("client");
  });
});

describe("unknown method vs bad params", () => {
  test("an unknown method is flagged unknown (-32601), a bad shape is not (-32602)", () => {
    const unknown = latest.requestParams("tools/explode", {});
    expect(unknown).toMatchObject({ ok: false, unknown: true });
    expect(!unknown.ok && unknown.message).toContain("tools/explode");
    expect(latest.requestParams("tools/call", { name: 1 })).toMatchObject({ ok: false, unknown: false });
    expect(june.requestParams("tasks/get", { taskId: "t" })).toMatchObject({ ok: false, unknown: true });
    expect(march.result("elicitation/create", { action: "decline" })).toMatchObject({ ok: false, unknown: true });
    expect(june.notificationParams("notifications/tasks/status", task)).toMatchObject({ ok: false, unknown: true });
  });

  test("absent params are validated as {}", () => {
    expect(latest.requestParams("tools/list", undefined)).toEqual({ ok: true, value: {} });
    expect(latest.notificationParams("notifications/initialized", undefined)).toEqual({ ok: true, value: {} });
    const missing = latest.requestParams("tools/call", undefined);
    expect(!missing.ok && missing.message).toBe("Invalid params for tools/call: params.name: required, but missing");
  });
});

describe("useful messages: the field path of what is wrong", () => {
  const cases: [string, () => ReturnType<typeof latest.result>, string][] = [
    ["tools/call name", () => latest.requestParams("tools/call", { name: 7 }), "params.name: Invalid type: Expected string but received 7"],
    [
      "arguments not an object",
      () => latest.requestParams("tools/call", { name: "x", arguments: "a=1" }),
      "params.arguments: Invalid type",
    ],
    [
      "text block without text",
      () => latest.result("tools/call", { content: [{ type: "text" }] }),
      "result.content.0.text: required, but missing",
    ],
    [
      "unknown content type",
      () => latest.result("tools/call", { content: [{ type: "video" }] }),
      'result.content.0.type: Invalid type: Expected ("text" |',
    ],
    [
      "tool without inputSchema",
      () => latest.result("tools/list", { tools: [{ name: "a" }, { name: "b", inputSchema: { type: "object" } }] }),
      "result.tools.0.inputSchema: required, but missing",
    ],
    [
      "inputSchema type",
      () => latest.result("tools/list", { tools: [{ name: "a", inputSchema: { type: "array" } }] }),
      'result.tools.0.inputSchema.type: Invalid type: Expected "object"',
    ],
    [
      "taskSupport enum",
      () =>
        latest.result("tools/list", { tools: [{ name: "a", inputSchema: { type: "object" }, execution: { taskSupport: "sometimes" } }] }),
      "result.tools.0.execution.taskSupport",
    ],
    ["logging level", () => latest.requestParams("logging/setLevel", { level: "verbose" }), "params.level: Invalid type"],
    [
      "maxTokens integer",
      () => latest.requestParams("sampling/createMessage", { messages: [], maxTokens: 1.5 }),
      "params.maxTokens: Invalid integer",
    ],
    [
      "priority range",
      () => latest.requestParams("sampling/createMessage", { messages: [], maxTokens: 5, modelPreferences: { costPriority: 2 } }),
      "params.modelPreferences.costPriority: Invalid value",
    ],
    [
      "tool_use in a message array",
      () =>
        latest.requestParams("sampling/createMessage", {
          maxTokens: 5,
          messages: [{ role: "assistant", content: [{ type: "tool_use", id: "1", name: "f" }] }],
        }),
      "params.messages.0.content.0.input: required, but missing",
    ],
    [
      "url elicitation without url",
      () => latest.requestParams("elicitation/create", { mode: "url", message: "m", elicitationId: "e" }),
      "params.url: required, but missing",
    ],
    ["task status enum", () => latest.result("tasks/get", { ...task, status: "running" }), "result.status: Invalid type"],
    ["task ttl required", () => latest.result("tasks/get", { ...task, ttl: undefined }), "result.ttl"],
    [
      "progress token",
      () => latest.notificationParams("notifications/progress", { progress: 1 }),
      "params.progressToken: required, but missing",
    ],
    [
      "initialize clientInfo",
      () => latest.requestParams("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c" } }),
      "params.clientInfo.version: required, but missing",
    ],
    [
      "arrays are not objects (arguments)",
      () => latest.requestParams("tools/call", { name: "x", arguments: [1] }),
      "params.arguments: Invalid type: Expected Object but received Array",
    ],
    [
      "arrays are not objects (capabilities)",
      () =>
        latest.requestParams("initialize", { protocolVersion: "1", capabilities: { roots: [] }, clientInfo: { name: "c", version: "1" } }),
      "params.capabilities.roots: Invalid type: Expected Object",
    ],
    [
      "arrays are not objects (_meta)",
      () => latest.notificationParams("notifications/initialized", { _meta: [] }),
      "params._meta: Invalid type: Expected Object",
    ],
    [
      "read result contents",
      () => latest.result("resources/read", { contents: [{ uri: "file:///a" }] }),
      "result.contents.0.text: required, but missing",
    ],
  ];
  for (const [name, run, expected] of cases) {
    test(name, () => {
      const r = run();
      expect(r.ok).toBe(false);
      expect(!r.ok && r.unknown).toBe(false);
      expect(!r.ok && r.message).toContain(expected);
    });
  }

  test("many issues are capped with a count", () => {
    const r = latest.result("tools/call", {
      content: [{ type: "text" }, { type: "text" }, { type: "text" }, { type: "text" }, { type: "text" }],
    });
    expect(!r.ok && r.message).toContain("and 2 more");
  });
});

describe("lenient where the spec is open", () => {
  test("unknown fields pass through, at every depth", () => {
    const params = {
      name: "search",
      arguments: { q: "x" },
      "x-vendor": { a: 1 },
      _meta: { progressToken: 1, "example.com/trace": "t" },
    };
    expect(latest.requestParams("tools/call", params)).toEqual({ ok: true, value: params });
    const result = { content: [{ type: "text", text: "hi", "x-extra": true }], futureField: [1, 2] };
    expect(latest.result("tools/call", result)).toEqual({ ok: true, value: result });
  });

  test("a task-augmented request may be answered with a CreateTaskResult, but only where tasks exist", () => {
    expect(latest.result("tools/call", { task })).toEqual({ ok: true, value: { task } });
    const bad = latest.result("tools/call", { task: { ...task, status: "queued" } });
    expect(!bad.ok && bad.message).toContain("Invalid task result for tools/call: result.task.status");
    expect(latest.result("tools/list", { task })).toMatchObject({ ok: false, unknown: false });
    expect(june.result("tools/call", { task })).toMatchObject({ ok: false, unknown: false });
  });
});

describe("what the older revisions reject", () => {
  test("2025-03-26 has no resource_link content", () => {
    const link = { type: "resource_link", uri: "file:///a", name: "a" };
    expect(june.result("tools/call", { content: [link] }).ok).toBe(true);
    expect(march.result("tools/call", { content: [link] }).ok).toBe(false);
    expect(march.result("prompts/get", { messages: [{ role: "user", content: link }] }).ok).toBe(false);
  });

  test("2025-06-18 has form elicitation only, primitive answers, no tool-use sampling, required requestId", () => {
    expect(june.requestParams("elicitation/create", { mode: "url", message: "m", elicitationId: "e", url: "https://a.example" }).ok).toBe(
      false,
    );
    const multi = { type: "array", items: { type: "string", enum: ["a"] } };
    const form = (field: unknown) => ({ message: "m", requestedSchema: { type: "object", properties: { f: field } } });
    expect(latest.requestParams("elicitation/create", form(multi)).ok).toBe(true);
    expect(june.requestParams("elicitation/create", form(multi)).ok).toBe(false);
    expect(june.requestParams("elicitation/create", form({ type: "string", enum: ["a"], enumNames: ["A"] })).ok).toBe(true);
    expect(june.result("elicitation/create", { action: "accept", content: { tags: ["a"] } }).ok).toBe(false);
    expect(latest.result("elicitation/create", { action: "accept", content: { tags: ["a"] } }).ok).toBe(true);
    const toolUse = { role: "assistant", content: { type: "tool_use", id: "1", name: "f", input: {} }, model: "m" };
    expect(latest.result("sampling/createMessage", toolUse).ok).toBe(true);
    expect(june.result("sampling/createMessage", toolUse).ok).toBe(false);
    expect(latest.notificationParams("notifications/cancelled", { reason: "r" }).ok).toBe(true);
    const cancelled = june.notificationParams("notifications/cancelled", { reason: "r" });
    expect(!cancelled.ok && cancelled.message).toContain("params.requestId: required, but missing");
  });
});
