/** The gateway's own behaviour, dialect aside: script, exhaustion, waiting, latency, closing, wire details. */
import { afterEach, describe, expect, test } from "bun:test";
import { isTurn, startFakeGateway, textOf, textTurn, toolCallTurn } from "./index.ts";
import type { FakeGateway, FakeGatewayOptions } from "./types.ts";

const open: FakeGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((gateway) => gateway.close()));
});

async function start(options: FakeGatewayOptions): Promise<FakeGateway> {
  const gateway = await startFakeGateway(options);
  open.push(gateway);
  return gateway;
}

const chat = (gateway: FakeGateway, extra: Record<string, unknown> = {}, signal?: AbortSignal) =>
  fetch(`${gateway.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], ...extra }),
    signal,
  });

const contentOf = async (response: Response) =>
  ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content;

describe("fake gateway", () => {
  test("listens on 127.0.0.1 and gives each dialect the base URL its SDK expects", async () => {
    for (const [dialect, suffix] of [
      ["openai", "/v1"],
      ["anthropic", ""],
      ["gemini", ""],
    ] as const) {
      const gateway = await start({ dialect });
      expect(gateway.url).toBe(gateway.origin + suffix);
      expect(gateway.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    }
  });

  test("turns are answered in order; push adds more; remaining counts down", async () => {
    const gateway = await start({ dialect: "openai", script: [textTurn("one")] });
    gateway.push(textTurn("two"), { text: "three" });
    expect(gateway.remaining()).toBe(3);
    expect(await contentOf(await chat(gateway))).toBe("one");
    expect(await contentOf(await chat(gateway))).toBe("two");
    expect(await contentOf(await chat(gateway))).toBe("three");
    expect(gateway.remaining()).toBe(0);
  });

  test("an echo turn quotes the request's headers as they arrived, credentials included; the record keeps them redacted", async () => {
    const gateway = await start({ dialect: "openai", script: [{ echo: "headers" }] });
    const response = await fetch(`${gateway.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-echo-1234567890", "x-team": "blue" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    const text = await contentOf(response);
    expect(text).toContain("authorization: Bearer sk-echo-1234567890");
    expect(text).toContain("x-team: blue");
    expect(gateway.requests[0]?.headers.authorization).toBe("[redacted]");
    expect(isTurn({ echo: "body" })).toBe(false);
  });

  test("an exhausted script answers 500 that SDKs must not retry, and says how to fix it", async () => {
    const gateway = await start({ dialect: "openai", script: [textTurn("only")] });
    await chat(gateway);
    const response = await chat(gateway);
    expect(response.status).toBe(500);
    expect(response.headers.get("x-should-retry")).toBe("false");
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/exhausted after 1 turns.*repeat-last/);
    expect(gateway.requests[1]?.rejected?.status).toBe(500);
  });

  test('onExhausted "repeat-last" replays the last turn', async () => {
    const gateway = await start({ dialect: "openai", script: [textTurn("again")], onExhausted: "repeat-last" });
    for (let index = 0; index < 3; index += 1) expect(await contentOf(await chat(gateway))).toBe("again");
  });

  test("a dynamic turn sees the recorded request; one that throws becomes a 500 naming the failure", async () => {
    const gateway = await start({
      dialect: "openai",
      script: [
        (request) => ({ text: `you sent ${request.messages.length} message(s) to ${request.model}` }),
        () => {
          throw new Error("boom");
        },
      ],
    });
    expect(await contentOf(await chat(gateway))).toBe("you sent 1 message(s) to m");
    const failed = await chat(gateway);
    expect(failed.status).toBe(500);
    expect(await failed.text()).toContain("the dynamic turn failed: boom");
  });

  test("bad turns are refused at once with the turn's position", async () => {
    await expect(startFakeGateway({ dialect: "openai", script: [textTurn("ok"), { txt: "typo" } as never] })).rejects.toThrow(
      /turn 2: a turn needs "text", "toolCalls" or "fault"/,
    );
    const gateway = await start({ dialect: "openai" });
    expect(() => gateway.push({ fault: "explode" } as never)).toThrow(/unknown fault "explode"/);
    expect(() => gateway.push({ toolCalls: [{ name: "f", arguments: "{}" }] } as never)).toThrow(/toolCalls\[0\]/);
    await expect(startFakeGateway({ dialect: "grok" as never })).rejects.toThrow(/unknown dialect "grok"/);
  });

  test("waitForRequests resolves on arrival, times out, and rejects when the gateway closes", async () => {
    const gateway = await start({ dialect: "openai", script: [textTurn("hi")] });
    const waiting = gateway.waitForRequests(1);
    await chat(gateway);
    await waiting;
    await expect(gateway.waitForRequests(2, { timeoutMs: 20 })).rejects.toThrow(/waited 20 ms for 2 requests, got 1/);
    const pending = gateway.waitForRequests(5);
    await gateway.close();
    await expect(pending).rejects.toThrow(/closed with 1 of 5 requests/);
  });

  test("latencyMs holds the answer back (the request is recorded at once); close ends the wait", async () => {
    const gateway = await start({ dialect: "openai", script: [textTurn("late")], latencyMs: 60_000 });
    let settled = false;
    const response = chat(gateway).finally(() => (settled = true));
    await gateway.waitForRequests(1);
    expect(settled).toBe(false);
    await gateway.close();
    await expect(response).rejects.toThrow();
  });

  test("a non-streaming stall sends its headers, then holds the body until the client aborts", async () => {
    const gateway = await start({ dialect: "openai", script: [{ fault: "stall" }] });
    const abort = new AbortController();
    const response = await chat(gateway, {}, abort.signal);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const body = response.text();
    abort.abort();
    await expect(body).rejects.toThrow();
  });

  test("close ends a stalled stream and is idempotent", async () => {
    const gateway = await start({ dialect: "openai", script: [{ fault: "stall" }] });
    const response = await chat(gateway, { stream: true });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"role":"assistant"');
    await Promise.all([gateway.close(), gateway.close()]);
    await expect(reader.read()).rejects.toThrow();
  });

  test("openai stream: SSE content type, [DONE] last, no usage chunk unless include_usage asks", async () => {
    const gateway = await start({ dialect: "openai", script: [textTurn("plain"), textTurn("counted")] });
    const plain = await chat(gateway, { stream: true });
    expect(plain.headers.get("content-type")).toStartWith("text/event-stream");
    const lines = (await plain.text()).split("\n").filter((line) => line.startsWith("data: "));
    expect(lines.at(-1)).toBe("data: [DONE]");
    expect(lines.some((line) => line.includes('"usage"'))).toBe(false);
    const counted = (await (await chat(gateway, { stream: true, stream_options: { include_usage: true } })).text())
      .split("\n")
      .filter((line) => line.startsWith("data: {"));
    expect(JSON.parse((counted.at(-1) as string).slice(6))).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
  });

  test("gemini streamGenerateContent without alt=sse answers one JSON array", async () => {
    const gateway = await start({ dialect: "gemini", script: [textTurn("an array of chunks please")] });
    const response = await fetch(`${gateway.url}/v1beta/models/gemini-test:streamGenerateContent`, {
      method: "POST",
      body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }),
    });
    const chunks = (await response.json()) as Array<{
      candidates: Array<{ content: { parts: Array<{ text: string }> }; finishReason?: string }>;
    }>;
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => chunk.candidates[0]?.content.parts[0]?.text).join("")).toBe("an array of chunks please");
    expect(chunks.at(-1)?.candidates[0]?.finishReason).toBe("STOP");
  });

  test("usage is estimated when not scripted; the reported model can be overridden", async () => {
    const gateway = await start({
      dialect: "openai",
      script: [toolCallTurn({ name: "f", arguments: { a: 1 } })],
      model: "gpt-test-2025-01-01",
    });
    const body = (await (await chat(gateway)).json()) as { model: string; usage: { prompt_tokens: number; completion_tokens: number } };
    expect(body.model).toBe("gpt-test-2025-01-01");
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.usage.completion_tokens).toBeGreaterThan(0);
    expect(textOf(textTurn("x"))).toBe("x");
    expect(textOf(() => ({ text: "later" }))).toBeUndefined();
  });
});
