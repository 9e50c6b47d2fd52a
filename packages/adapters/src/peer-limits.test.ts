/**
 * What a hostile model endpoint cannot do, for every dialect, over real HTTP on 127.0.0.1: send an endless
 * answer (whole or streamed) — the read stops at `maxResponseBytes`, the connection is closed, and the error
 * is one line naming the endpoint and the limit — or redirect the request (API key and conversation) to
 * another origin: nothing reaches it, and the error names both origins.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { AgentdError, type LanguageModel } from "@agentd/sdk/model";
import {
  type EndlessBody,
  type HostilePeer,
  type RedirectPair,
  startHostilePeer,
  startRedirectPair,
} from "@agentd/test-support/hostile-peer";
import { createModel, type ModelDialect, MODEL_DIALECTS } from "./create-model.ts";

const LIMIT = 1024 * 1024;
/** Loopback socket buffers and the runtime's own hold a few MiB between the two ends: the read stops well before this. */
const SENT_AT_MOST = 32 * 1024 * 1024;
const KEY = "sk-hostile-SECRET-0123456789";
const filler = "x".repeat(4000);

/** Each dialect's endless answer: a JSON body that never closes, and a stream of text deltas that never ends. */
const ENDLESS: Record<ModelDialect, { whole: EndlessBody; streamed: EndlessBody }> = {
  openai: {
    whole: { endless: true, contentType: "application/json", head: '{"choices":[{"message":{"content":"', unit: filler },
    streamed: {
      endless: true,
      contentType: "text/event-stream",
      unit: `data: {"choices":[{"index":0,"delta":{"content":"${filler}"}}]}\n\n`,
    },
  },
  responses: {
    whole: {
      endless: true,
      contentType: "application/json",
      head: '{"id":"r","output":[{"type":"message","content":[{"text":"',
      unit: filler,
    },
    streamed: {
      endless: true,
      contentType: "text/event-stream",
      head: 'data: {"type":"response.created","response":{"id":"r","status":"in_progress","output":[]}}\n\n',
      unit: `data: {"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"${filler}"}\n\n`,
    },
  },
  anthropic: {
    whole: { endless: true, contentType: "application/json", head: '{"content":[{"type":"text","text":"', unit: filler },
    streamed: {
      endless: true,
      contentType: "text/event-stream",
      head:
        'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
      unit: `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${filler}"}}\n\n`,
    },
  },
  gemini: {
    whole: { endless: true, contentType: "application/json", head: '{"candidates":[{"content":{"parts":[{"text":"', unit: filler },
    streamed: {
      endless: true,
      contentType: "text/event-stream",
      unit: `data: {"candidates":[{"content":{"parts":[{"text":"${filler}"}],"role":"model"},"index":0}]}\n\n`,
    },
  },
};

const baseOf = (dialect: ModelDialect, origin: string) => (dialect === "openai" || dialect === "responses" ? `${origin}/v1` : origin);
const pathOf: Record<ModelDialect, string> = {
  openai: "/v1/chat/completions",
  responses: "/v1/responses",
  anthropic: "/v1/messages",
  gemini: "/v1beta/models/m-1:",
};

function model(dialect: ModelDialect, origin: string): LanguageModel {
  return createModel({ dialect, baseURL: baseOf(dialect, origin), apiKey: KEY, model: "m-1", maxRetries: 0, maxResponseBytes: LIMIT });
}

const ask = { messages: [{ role: "user" as const, content: "Tell me everything." }] };

async function failureOf(run: () => Promise<unknown>): Promise<AgentdError> {
  try {
    await run();
  } catch (e) {
    if (AgentdError.isInstance(e)) return e;
    throw e;
  }
  throw new Error("the call succeeded");
}

let peer: HostilePeer | undefined;
let pair: RedirectPair | undefined;
afterEach(() => {
  peer?.stop();
  pair?.stop();
  peer = pair = undefined;
});

describe("an endless answer is cut off at maxResponseBytes", () => {
  for (const dialect of MODEL_DIALECTS)
    for (const mode of ["whole", "streamed"] as const)
      test(`${dialect}, ${mode}`, async () => {
        peer = startHostilePeer(() => ENDLESS[dialect][mode]);
        const m = model(dialect, peer.url);
        let received = 0;
        const e = await failureOf(async () => {
          if (mode === "whole") return m.generate(ask);
          for await (const part of m.stream(ask)) if (part.type === "text-delta") received += part.delta.length;
        });
        expect(e.code).toBe("E_UPSTREAM");
        expect(e.message).toContain(`model endpoint ${peer.url}${pathOf[dialect]}`);
        expect(e.message).toContain("over the 1 MiB limit");
        expect(e.message).toContain("model.maxResponseBytes");
        expect(e.message).not.toContain("\n");
        expect(e.message).not.toContain(KEY);
        // The connection was closed: the peer saw its body cancelled, having sent little past the limit.
        const sent = await peer.cutOff;
        expect(sent).toBeLessThan(SENT_AT_MOST);
        expect(received).toBeLessThanOrEqual(LIMIT);
      });
});

describe("a redirect to another origin is refused: the key and the conversation stay home", () => {
  for (const dialect of MODEL_DIALECTS)
    for (const mode of ["whole", "streamed"] as const)
      test(`${dialect}, ${mode}`, async () => {
        pair = startRedirectPair(307);
        const m = model(dialect, pair.from);
        const e = await failureOf(async () => {
          if (mode === "whole") return m.generate(ask);
          for await (const _ of m.stream(ask));
        });
        expect(pair.received).toEqual([]);
        expect(e.code).toBe("E_UPSTREAM");
        expect(e.message).toContain(pair.from);
        expect(e.message).toContain(pair.to);
        expect(e.message).toContain("another origin");
        expect(e.message).not.toContain(KEY);
      });

  test("a redirect within the origin is still followed (a 308 to a trailing slash, say)", async () => {
    peer = startHostilePeer((req, url) =>
      url.pathname === "/v1/chat/completions"
        ? new Response(null, { status: 308, headers: { location: "/v1/chat/completions/" } })
        : Response.json({
            choices: [{ message: { content: `ok ${req.headers.get("authorization") === `Bearer ${KEY}`}` }, finish_reason: "stop" }],
          }),
    );
    const r = await model("openai", peer.url).generate(ask);
    expect(r.content).toEqual([{ type: "text", text: "ok true" }]);
    expect(peer.requests.map((q) => [q.method, q.path, q.body.includes("Tell me everything.")])).toEqual([
      ["POST", "/v1/chat/completions", true],
      ["POST", "/v1/chat/completions/", true],
    ]);
  });
});

test("an endless error body is read only as far as its message needs", async () => {
  peer = startHostilePeer(() => ({ endless: true, status: 500, contentType: "text/plain", unit: "overloaded " }));
  const e = await failureOf(() => model("anthropic", peer!.url).generate(ask));
  expect(e.code).toBe("E_UPSTREAM");
  expect(e.message).toContain("HTTP 500");
  expect(e.message.length).toBeLessThan(2000);
  expect(await peer.cutOff).toBeLessThan(SENT_AT_MOST);
});
