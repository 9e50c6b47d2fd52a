/**
 * Oracle tests: our schemas and codecs against the official MCP JSON Schemas (`../shared/specs`, via ajv)
 * and the official TypeScript SDK (zod), over a corpus holding every message kind of 2025-11-25.
 * Tests named `[needs ../shared]` need the official schema files; when the folder is absent the runner
 * reports them skipped. The SDK oracle tests always run.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { getCodec, REVISION_TABLES } from "./codecs.ts";
import { HANDSHAKE_REVISIONS, SUPPORTED_REVISIONS, type McpCodec, type ProtocolRevision } from "./codec.ts";
import { classify, errorResponse, notification, request, resultResponse } from "./jsonrpc.ts";
import { URLElicitationRequiredErrorDataSchema } from "./schemas/elicitation.ts";
import { CORPUS, kindOf, type CorpusEntry } from "../__fixtures__/corpus.ts";
import { NEEDS_SHARED, parseWithOfficialSdk, REQUEST_DEFINITIONS, sharedMissing, validateOfficial } from "@agentd/test-support/oracle";
import { officialSchemaPath } from "@agentd/test-support/shared-specs";
import * as v from "valibot";

/** Run a corpus message through our codec of `revision`, as the protocol layer would. */
function ours(codec: McpCodec, e: CorpusEntry): { ok: boolean; message: string } {
  const k = classify(e.message);
  switch (k.kind) {
    case "request": {
      const r = codec.requestParams(k.message.method, k.message.params);
      return { ok: r.ok, message: r.ok ? "" : r.message };
    }
    case "notification": {
      const r = codec.notificationParams(k.message.method, k.message.params);
      return { ok: r.ok, message: r.ok ? "" : r.message };
    }
    case "result": {
      const r = codec.result(e.method, k.message.result);
      return { ok: r.ok, message: r.ok ? "" : r.message };
    }
    case "error": {
      // Error responses are envelope-only, except -32042 whose data has a shape since 2025-11-25.
      if (k.message.error.code !== -32042 || codec.revision !== "2025-11-25") return { ok: true, message: "" };
      const r = v.safeParse(URLElicitationRequiredErrorDataSchema, k.message.error.data);
      return { ok: r.success, message: r.success ? "" : "bad -32042 data" };
    }
    default:
      return { ok: false, message: `classified as ${k.kind}` };
  }
}

const readOfficial = (revision: string) => {
  const schema = JSON.parse(readFileSync(officialSchemaPath(revision), "utf8"));
  return (schema.$defs ?? schema.definitions) as Record<string, { anyOf?: { $ref: string }[]; properties?: any }>;
};

/** method → sender, from the official `ClientRequest` / `ServerRequest` (or notification) unions. */
function officialMethods(revision: string, kind: "Request" | "Notification"): Record<string, string> {
  const defs = readOfficial(revision);
  const out: Record<string, string> = {};
  for (const side of ["Client", "Server"] as const) {
    // 2026-07-28's ClientNotification is one definition, not a union of them.
    const union = defs[`${side}${kind}`];
    const refs = union?.anyOf ?? (union?.properties ? [{ $ref: `#/$defs/${side}${kind}` }] : []);
    for (const { $ref } of refs) {
      const method = defs[$ref.split("/").pop() as string]?.properties?.method?.const as string;
      const from = side.toLowerCase();
      out[method] = out[method] && out[method] !== from ? "both" : from;
    }
  }
  return out;
}

describe("the method tables", () => {
  for (const revision of SUPPORTED_REVISIONS) {
    test.skipIf(sharedMissing)(
      `${NEEDS_SHARED} ${revision}: requests and notifications, and who sends them, match the official schema`,
      () => {
        const table = REVISION_TABLES[revision];
        const fromTable = (t: Record<string, { from: string }>) => Object.fromEntries(Object.entries(t).map(([m, s]) => [m, s.from]));
        expect(fromTable(table.requests)).toEqual(officialMethods(revision, "Request"));
        expect(fromTable(table.notifications)).toEqual(officialMethods(revision, "Notification"));
      },
    );
  }
});

describe("the corpus", () => {
  test("has a request, a result and a notification for every method of 2025-11-25, and error responses", () => {
    const table = REVISION_TABLES["2025-11-25"];
    const has = (kind: string, method: string) => CORPUS.some((e) => kindOf(e) === kind && e.method === method);
    const missing = [
      ...Object.keys(table.requests).flatMap((m) =>
        [has("request", m) ? [] : [`${m} request`], has("result", m) ? [] : [`${m} result`]].flat(),
      ),
      ...Object.keys(table.notifications).filter((m) => !has("notification", m)),
    ];
    expect(missing).toEqual([]);
    expect(new Set(CORPUS.filter((e) => kindOf(e) === "error").map((e) => (e.message.error as { code: number }).code))).toEqual(
      new Set([-32601, -32602, -32002, -32042]),
    );
    expect(new Set(CORPUS.map((e) => e.name)).size).toBe(CORPUS.length);
  });

  test.skipIf(sharedMissing)(`${NEEDS_SHARED} exercises every result definition of the official 2025-11-25 schema`, () => {
    const defs = readOfficial("2025-11-25");
    const wanted = new Set(
      [...(defs.ClientResult?.anyOf ?? []), ...(defs.ServerResult?.anyOf ?? [])].map((r) => r.$ref.split("/").pop() as string),
    );
    wanted.delete("Result"); // the open base: every result is one
    wanted.add("CreateTaskResult");
    const exercised = new Set(
      CORPUS.filter((e) => kindOf(e) === "result").map((e) =>
        typeof (e.message.result as { task?: unknown }).task === "object" ? "CreateTaskResult" : REQUEST_DEFINITIONS[e.method]?.[1],
      ),
    );
    expect([...wanted].filter((d) => !exercised.has(d))).toEqual([]);
  });

  // The corpus is of the handshake revisions; 2026-07-28 has its own (codecs-2026.oracle.test.ts).
  for (const revision of HANDSHAKE_REVISIONS) {
    test.skipIf(sharedMissing)(
      `${NEEDS_SHARED} ${revision}: the official JSON Schema accepts exactly the messages declared valid in it`,
      () => {
        const wrong = CORPUS.flatMap((e) => {
          const verdict = validateOfficial(revision, e.message, e.method);
          return verdict.ok === e.revisions.includes(revision) ? [] : [`${e.name}: official ${verdict.ok} ${verdict.errors}`];
        });
        expect(wrong).toEqual([]);
      },
    );

    test(`${revision}: our codec accepts exactly the messages valid in it, and rejects or flags unknown the rest`, () => {
      const codec = getCodec(revision);
      const wrong = CORPUS.flatMap((e) => {
        const r = ours(codec, e);
        return r.ok === e.revisions.includes(revision) ? [] : [`${e.name}: ours ${r.ok} ${r.message}`];
      });
      expect(wrong).toEqual([]);
    });
  }

  test("every message parses with the official SDK's schemas", () => {
    const wrong = CORPUS.flatMap((e) => {
      const verdict = parseWithOfficialSdk(e.message, e.method);
      return verdict.ok ? [] : [`${e.name}: ${verdict.errors}`];
    });
    expect(wrong).toEqual([]);
  });

  test("the allocation-free checks give the same verdict and message as the CodecResult forms, before and after compiling", () => {
    const wrong: string[] = [];
    let failures = 0;
    for (const revision of SUPPORTED_REVISIONS) {
      const codec = getCodec(revision);
      // Each schema is answered by `v.is` for its first uses and by its compiled check after: pass both.
      for (let pass = 0; pass < 40; pass++)
        for (const e of CORPUS) {
          const k = classify(e.message);
          let full: ReturnType<McpCodec["result"]>;
          let fast: ReturnType<McpCodec["checkResult"]>;
          if (k.kind === "request")
            [full, fast] = [
              codec.requestParams(k.message.method, k.message.params),
              codec.checkRequestParams(k.message.method, k.message.params),
            ];
          else if (k.kind === "notification")
            [full, fast] = [
              codec.notificationParams(k.message.method, k.message.params),
              codec.checkNotificationParams(k.message.method, k.message.params),
            ];
          else if (k.kind === "result")
            [full, fast] = [codec.result(e.method, k.message.result), codec.checkResult(e.method, k.message.result)];
          else continue;
          if (!full.ok) failures++;
          if (full.ok ? fast !== undefined : JSON.stringify(fast) !== JSON.stringify(full))
            wrong.push(`${revision} ${e.name}: ${JSON.stringify(full)} against ${JSON.stringify(fast)}`);
        }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(failures).toBeGreaterThan(100); // refusals (wrong revision, unknown method) are compared too
  });

  test("our codec keeps every field of every corpus message (nothing stripped, nothing added)", () => {
    const codec = getCodec("2025-11-25");
    for (const e of CORPUS) {
      const k = classify(e.message);
      let r: ReturnType<McpCodec["result"]>;
      let original: unknown;
      if (k.kind === "request") [r, original] = [codec.requestParams(k.message.method, k.message.params), k.message.params ?? {}];
      else if (k.kind === "notification")
        [r, original] = [codec.notificationParams(k.message.method, k.message.params), k.message.params ?? {}];
      else if (k.kind === "result") [r, original] = [codec.result(e.method, k.message.result), k.message.result];
      else continue;
      expect(r.ok && r.value).toEqual(original as Record<string, unknown>);
    }
  });
});

/** Wrong shapes: [name, revision, whole message, method for results, path our codec must name]. */
const BAD: [string, ProtocolRevision, object, string | undefined, string][] = [
  ["tools/call without name", "2025-11-25", request(1, "tools/call", { arguments: {} }), undefined, "params.name"],
  ["tools/call with array arguments", "2025-11-25", request(1, "tools/call", { name: "x", arguments: [1] }), undefined, "params.arguments"],
  [
    "initialize without capabilities",
    "2025-11-25",
    request(1, "initialize", { protocolVersion: "2025-11-25", clientInfo: { name: "c", version: "1" } }),
    undefined,
    "params.capabilities",
  ],
  ["setLevel with a bad level", "2025-11-25", request(1, "logging/setLevel", { level: "verbose" }), undefined, "params.level"],
  [
    "createMessage with fractional maxTokens",
    "2025-11-25",
    request(1, "sampling/createMessage", { messages: [], maxTokens: 1.5 }),
    undefined,
    "params.maxTokens",
  ],
  [
    "createMessage with costPriority 2",
    "2025-11-25",
    request(1, "sampling/createMessage", { messages: [], maxTokens: 1, modelPreferences: { costPriority: 2 } }),
    undefined,
    "params.modelPreferences.costPriority",
  ],
  [
    "url elicitation without elicitationId",
    "2025-11-25",
    request(1, "elicitation/create", { mode: "url", message: "m", url: "https://a.example" }),
    undefined,
    "params.elicitationId",
  ],
  ["progress without progress", "2025-11-25", notification("notifications/progress", { progressToken: 1 }), undefined, "params.progress"],
  ["resources/updated without uri", "2025-11-25", notification("notifications/resources/updated", {}), undefined, "params.uri"],
  [
    "task status notification with a bad status",
    "2025-11-25",
    notification("notifications/tasks/status", { taskId: "t", status: "paused", createdAt: "a", lastUpdatedAt: "b", ttl: 1 }),
    undefined,
    "params.status",
  ],
  [
    "tools/call result with a nameless resource_link",
    "2025-11-25",
    resultResponse(1, { content: [{ type: "resource_link", uri: "file:///a" }] }),
    "tools/call",
    "result.content.0.name",
  ],
  [
    "tools/list result with a bad inputSchema",
    "2025-11-25",
    resultResponse(1, { tools: [{ name: "t", inputSchema: { type: "string" } }] }),
    "tools/list",
    "result.tools.0.inputSchema.type",
  ],
  [
    "tasks/get result without ttl",
    "2025-11-25",
    resultResponse(1, { taskId: "t", status: "working", createdAt: "a", lastUpdatedAt: "b" }),
    "tasks/get",
    "result.ttl",
  ],
  ["elicit result with an unknown action", "2025-11-25", resultResponse(1, { action: "maybe" }), "elicitation/create", "result.action"],
  [
    "completion result without values",
    "2025-11-25",
    resultResponse(1, { completion: { total: 3 } }),
    "completion/complete",
    "result.completion.values",
  ],
  [
    "initialize result with a bad serverInfo",
    "2025-06-18",
    resultResponse(1, { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: 1, version: "1" } }),
    "initialize",
    "result.serverInfo.name",
  ],
  [
    "cancelled without requestId in 2025-06-18",
    "2025-06-18",
    notification("notifications/cancelled", { reason: "r" }),
    undefined,
    "params.requestId",
  ],
  [
    "sampling tool_use in 2025-06-18",
    "2025-06-18",
    resultResponse(1, { role: "assistant", model: "m", content: { type: "tool_use", id: "1", name: "f", input: {} } }),
    "sampling/createMessage",
    "result.content.type",
  ],
  [
    "resource_link in 2025-03-26",
    "2025-03-26",
    resultResponse(1, { content: [{ type: "resource_link", uri: "file:///a", name: "a" }] }),
    "tools/call",
    "result.content.0.type",
  ],
];

describe("wrong shapes", () => {
  for (const [name, revision, message, method, path] of BAD) {
    test(`our ${revision} codec rejects ${name}, naming ${path}`, () => {
      const m = message as Record<string, unknown>;
      const r = ours(getCodec(revision), { name, method: method ?? (m.method as string), message: m, revisions: [] });
      expect(r.ok).toBe(false);
      expect(r.message).toContain(`${path}:`);
    });
  }

  test.skipIf(sharedMissing)(`${NEEDS_SHARED} the official JSON Schema rejects every one of them too`, () => {
    const accepted = BAD.filter(([, revision, message, method]) => validateOfficial(revision, message, method).ok).map(([n]) => n);
    expect(accepted).toEqual([]);
  });

  test("the official SDK rejects the 2025-11-25 ones too", () => {
    const accepted = BAD.filter(([, revision]) => revision === "2025-11-25")
      .filter(([, , message, method]) => parseWithOfficialSdk(message, method).ok)
      .map(([n]) => n);
    expect(accepted).toEqual([]);
  });
});

describe("envelopes", () => {
  test.skipIf(sharedMissing)(`${NEEDS_SHARED} batches: only the 2025-03-26 schema accepts one, as codec.batches says`, () => {
    const batch = [request(1, "ping"), notification("notifications/initialized")];
    for (const revision of SUPPORTED_REVISIONS) expect(validateOfficial(revision, batch).ok).toBe(getCodec(revision).batches);
  });

  test.skipIf(sharedMissing)(`${NEEDS_SHARED} what the jsonrpc.ts builders emit validates in every revision`, () => {
    const messages: [unknown, string | undefined][] = [
      [request("a", "tools/call", { name: "x", arguments: {} }), undefined],
      [notification("notifications/tools/list_changed"), undefined],
      [resultResponse(3, { content: [] }), "tools/call"],
      [errorResponse(4, -32602, "Invalid params", { path: "params.name" }), undefined],
    ];
    for (const revision of HANDSHAKE_REVISIONS)
      for (const [m, method] of messages) expect(validateOfficial(revision, m, method)).toEqual({ ok: true, errors: "" });
  });
});
