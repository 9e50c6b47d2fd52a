import { expect, test } from "bun:test";
import { createCodec, REVISION_TABLES } from "./codecs.ts";

// A schema is checked by valibot for its first uses and by its compiled check after: the verdicts and the
// value returned must not change when the switch happens.
test("a codec's verdicts are the same before and after its check is compiled", () => {
  const codec = createCodec("2025-11-25", REVISION_TABLES["2025-11-25"]);
  const good = { content: [{ type: "text", text: "hello" }], isError: false };
  const bad = { content: [{ type: "text", text: 42 }] };
  const verdicts = new Set<string>();
  for (let i = 0; i < 100; i++) {
    const r = codec.result("tools/call", good);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value).toBe(good); // the input itself, not a copy
    const w = codec.result("tools/call", bad);
    expect(w.ok).toBe(false);
    if (!w.ok) verdicts.add(w.message);
  }
  expect([...verdicts]).toEqual(["Invalid result for tools/call: result.content.0.text: Invalid type: Expected string but received 42"]);
});
