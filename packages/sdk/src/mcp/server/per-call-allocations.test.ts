/**
 * What the server's MCP layer allocates per `tools/call` of a tool that answers at once, counted by type in
 * a child process (`__fixtures__/call-allocations.ts`, under the interpreter so the counts are exact). On
 * the hot path of every request a closure, a scope object or a promise costs its allocation and its share
 * of the collector's work; this pins the count so one added per request fails here.
 *
 * Counted on 2026-12-06 (Bun 1.4.4): 6 objects (the in-flight record, the handler's context and its empty
 * `_meta`, an empty capability set read for the context, the send options, the JSON-RPC answer), 5
 * functions (the context's `signal` getter, `sendNotification`, `sendRequest`, the session's `log`, the
 * microtask that replies), 7 scope objects (a function holding a closure gets one on every call, two when
 * it captures both parameters and `const`s), 1 accessor pair, 1 array (the argument check's list of keys),
 * no promise — 20 cells. Fewer were tried (14 and 11 cells) and not kept: the CPU did not follow
 * (bench/NOTES.md, "Round 3, fifth session").
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

/** The bound per type: what the layer allocates today (see above). */
const MAX_PER_CALL: Record<string, number> = { Object: 6, Function: 5, JSLexicalEnvironment: 7, GetterSetter: 1, Array: 1, Promise: 0 };

test("a tools/call answered at once allocates at most 20 cells in the MCP layer and no promise", async () => {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "__fixtures__", "call-allocations.ts")], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, BUN_JSC_useJIT: "0" },
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, err: code === 0 ? "" : err }).toEqual({ code: 0, err: "" });
  const { perCall } = JSON.parse(out) as { perCall: Record<string, number> };
  const counted = Object.fromEntries(Object.keys(MAX_PER_CALL).map((type) => [type, perCall[type] ?? 0]));
  const over = Object.entries(counted).filter(([type, n]) => n > (MAX_PER_CALL[type] as number));
  expect({ counted, over }).toEqual({ counted, over: [] });
});
