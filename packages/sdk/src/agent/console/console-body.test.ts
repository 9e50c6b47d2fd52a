import { expect, test } from "bun:test";
import { MAX_CONSOLE_BODY, readConsoleBody } from "./console-body.ts";

const post = (body: BodyInit | null, type = "application/json", headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1/console/api/x", { method: "POST", headers: { "content-type": type, ...headers }, body });

test("a JSON object is read; an empty body is {} only where that is allowed", async () => {
  expect(await readConsoleBody(post('{"a":1}'), "the answer")).toEqual({ ok: true, params: { a: 1 } });
  expect(await readConsoleBody(post(""), "the action's parameters", { emptyIsObject: true })).toEqual({ ok: true, params: {} });
  expect(await readConsoleBody(post(""), "the answer")).toMatchObject({ ok: false, status: 400, code: "invalid_json" });
  expect(await readConsoleBody(post("[1]"), "the answer")).toMatchObject({ ok: false, status: 400, code: "invalid_params" });
  expect(await readConsoleBody(post("{}", "text/plain"), "the answer")).toMatchObject({
    ok: false,
    status: 415,
    message: "send the answer as application/json",
  });
});

test("past the bound it is refused without reading the whole body: a declared length at once, a chunked body as it streams", async () => {
  const declared = post("{}", "application/json", { "content-length": String(MAX_CONSOLE_BODY + 1) });
  expect(await readConsoleBody(declared, "the answer")).toMatchObject({ ok: false, status: 413, code: "too_large" });
  // A chunked body that would never end: refused once it passes the bound (a whole read would never return).
  let sent = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(c) {
      sent += 16 * 1024;
      c.enqueue(new Uint8Array(16 * 1024).fill(0x20));
    },
  });
  expect(await readConsoleBody(post(endless), "the run's parameters")).toMatchObject({
    ok: false,
    status: 413,
    message: `the run's parameters must be at most ${MAX_CONSOLE_BODY} bytes`,
  });
  expect(sent).toBeLessThan(MAX_CONSOLE_BODY * 4);
});
