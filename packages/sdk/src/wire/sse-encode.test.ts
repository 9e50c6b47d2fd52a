import { describe, expect, test } from "bun:test";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { encodeSseComment, encodeSseEvent } from "./sse-encode.ts";

/** Parse with an independent, spec-following reader so the test does not grade its own homework. */
function parse(text: string): { events: EventSourceMessage[]; retry: number[] } {
  const events: EventSourceMessage[] = [];
  const retry: number[] = [];
  const p = createParser({ onEvent: (e) => events.push(e), onRetry: (r) => retry.push(r) });
  p.feed(text);
  return { events, retry };
}

describe("encodeSseEvent", () => {
  test("writes id, event, retry and data lines ending in a blank line", () => {
    const text = encodeSseEvent({ id: "3.1", event: "message", retry: 1500, data: '{"a":1}' });
    expect(text).toBe('id: 3.1\nevent: message\nretry: 1500\ndata: {"a":1}\n\n');
    const { events, retry } = parse(text);
    expect(events).toEqual([{ id: "3.1", event: "message", data: '{"a":1}' }]);
    expect(retry).toEqual([1500]);
  });

  test("a priming event (id and empty data) reaches the reader with its id", () => {
    const { events } = parse(encodeSseEvent({ id: "0.0", data: "" }));
    expect(events).toEqual([{ id: "0.0", event: undefined, data: "" }]);
  });

  test("multi-line data is split into data lines and joined back by the reader", () => {
    const data = "line one\nline two\r\nline three\rfour";
    const text = encodeSseEvent({ data });
    expect(text.split("\n").filter((l) => l.startsWith("data: ")).length).toBe(4);
    expect(parse(text).events[0]?.data).toBe("line one\nline two\nline three\nfour");
  });

  test("refuses an id or event name that would inject a second field", () => {
    expect(() => encodeSseEvent({ id: "1\ndata: evil" })).toThrow(TypeError);
    expect(() => encodeSseEvent({ event: "x\ry" })).toThrow(TypeError);
    expect(() => encodeSseEvent({ retry: -1 })).toThrow(TypeError);
    expect(() => encodeSseEvent({ retry: 1.5 })).toThrow(TypeError);
  });

  test("events concatenate into one stream", () => {
    const text = encodeSseEvent({ id: "a", data: "1" }) + encodeSseComment("keep-alive") + encodeSseEvent({ id: "b", data: "2" });
    expect(parse(text).events.map((e) => [e.id, e.data])).toEqual([
      ["a", "1"],
      ["b", "2"],
    ]);
  });
});

describe("encodeSseComment", () => {
  test("is ignored by readers and never dispatches an event", () => {
    expect(encodeSseComment("keep-alive")).toBe(": keep-alive\n\n");
    expect(encodeSseComment()).toBe(":\n\n");
    expect(parse(encodeSseComment("a\nb")).events).toEqual([]);
  });
});
