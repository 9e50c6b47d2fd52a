/**
 * The conformance suite every transport runs (STYLE.md: one case suite, one call per implementation).
 *
 * Usage, in `<impl>.test.ts`:
 * ```ts
 * runTransportCases("my transport", async () => {
 *   // build two connected ends, both already started and able to exchange messages
 *   return { a, b, cleanup: async () => { await a.close(); await b.close(); stopEverythingStarted(); } };
 * });
 * ```
 * Contract for `makePair` (called once per case, `cleanup` always runs, even when a case fails):
 * - `a` and `b` are connected and started; what one sends the other receives.
 * - The suite sets `onmessage`/`onclose`/`onerror`/`onframeerror` itself after `makePair` resolves, so the
 *   pair must not depend on those properties afterwards.
 * - `cleanup` must be safe after either end was closed, and stop every process/server the pair started.
 *
 * What the cases require of a transport:
 * - messages arrive whole, unchanged (1 MiB, any Unicode) and in send order, both ways;
 * - `close()` is idempotent, fires `onclose` exactly once, and resolves after it has fired;
 * - the far side notices a close: its `onclose` fires (default), or with `farSide: "send-rejects"` its next
 *   `send` rejects (for transports that only learn of a close when they next talk, e.g. an HTTP client);
 * - `send` after close rejects;
 * - `start()` on a started transport rejects (all agentd transports throw `E_TRANSPORT`), and the
 *   transport keeps working.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { JsonRpcMessage } from "../../wire/jsonrpc.ts";
import type { Transport } from "../types.ts";

/** Two connected, started transports and how to tear them down. */
export interface TransportPair {
  a: Transport;
  b: Transport;
  cleanup(): Promise<void>;
}

/** Knobs for transports whose semantics legitimately differ. */
export interface TransportCaseOptions {
  /** How the far side learns of a close (default `"onclose"`). */
  farSide?: "onclose" | "send-rejects";
  /** Burst sends without awaiting each (default true). Set false where concurrent sends may reorder (HTTP). */
  concurrentBurst?: boolean;
  /** Failure deadline for anything the suite waits for, in ms (default 20000). Not a sleep. */
  timeoutMs?: number;
}

/** Register the shared transport cases under `describe(name)`. */
export function runTransportCases(name: string, makePair: () => Promise<TransportPair>, options: TransportCaseOptions = {}): void {
  const timeoutMs = options.timeoutMs ?? 20_000;
  // bun's per-test timeout (5 s by default) must outlast our own deadlines, so a failure names what it awaited.
  const caseTimeout = timeoutMs + 10_000;
  const burst = async (t: Transport, ms: JsonRpcMessage[]) => {
    if (options.concurrentBurst ?? true) await Promise.all(ms.map((m) => t.send(m)));
    else for (const m of ms) await t.send(m);
  };

  describe(`${name} (transport cases)`, () => {
    let pair: TransportPair | undefined;
    afterEach(async () => {
      const p = pair;
      pair = undefined;
      await p?.cleanup();
    }, caseTimeout);
    const open = async () => {
      pair = await makePair();
      return { ...pair, a: watch(pair.a, timeoutMs), b: watch(pair.b, timeoutMs) };
    };

    test(
      "messages both ways, in order",
      async () => {
        const { a, b } = await open();
        const toB = [note("one", { n: 1 }), { jsonrpc: "2.0", id: 7, method: "tools/list" }, note("three", { n: 3 })] as const;
        for (const m of toB) await a.t.send(m);
        expect(await b.received(3)).toEqual([...toB]);
        const toA = [
          { jsonrpc: "2.0", id: 7, result: { tools: [] } },
          { jsonrpc: "2.0", id: 8, error: { code: -32601, message: "no" } },
        ];
        for (const m of toA) await b.t.send(m as JsonRpcMessage);
        expect(await a.received(2)).toEqual(toA);
        expect([...a.problems, ...b.problems]).toEqual([]);
      },
      caseTimeout,
    );

    test(
      "1,000-message bursts both ways at once arrive in order",
      async () => {
        const { a, b } = await open();
        const n = 1000;
        const batch = (dir: string) => Array.from({ length: n }, (_, i) => note(dir, { i }));
        await Promise.all([burst(a.t, batch("ab")), burst(b.t, batch("ba"))]);
        const [atB, atA] = await Promise.all([b.received(n), a.received(n)]);
        expect(atB.map((m) => (m as Note).params.i)).toEqual(batch("ab").map((m) => m.params.i));
        expect(atA.map((m) => (m as Note).method)).toEqual(Array(n).fill("ba"));
        expect(atA.map((m) => (m as Note).params.i)).toEqual(batch("ba").map((m) => m.params.i));
        expect([...a.problems, ...b.problems]).toEqual([]);
      },
      caseTimeout,
    );

    test(
      "a 1 MiB message arrives intact",
      async () => {
        const { a, b } = await open();
        const chunk = "0123456789abcdef—é😀";
        const data = chunk.repeat(Math.ceil((1024 * 1024) / chunk.length)).slice(0, 1024 * 1024);
        const big = note("big", { data });
        await a.t.send(big);
        expect(await b.received(1)).toEqual([big]);
        await b.t.send(big);
        expect(await a.received(1)).toEqual([big]);
        expect([...a.problems, ...b.problems]).toEqual([]);
      },
      caseTimeout,
    );

    test(
      "Unicode arrives intact",
      async () => {
        const { a, b } = await open();
        const texts = [
          "😀👩‍👩‍👧‍👦🇩🇪 emoji and ZWJ sequences",
          "你好世界 日本語 한국어 CJK",
          "مرحبا שלום right-to-left",
          "e\u0301 combining, \u2028 \u2029 line separators, \u0000 NUL, \r\n\t controls",
          "lone surrogates \ud800 \udfff, BOM \ufeff, max \u{10ffff}",
        ];
        const m = note("unicode", { texts, [texts[1]!]: texts[0]! });
        await a.t.send(m);
        expect(await b.received(1)).toEqual([m]);
        await b.t.send(m);
        expect(await a.received(1)).toEqual([m]);
      },
      caseTimeout,
    );

    for (const [closer, other] of [
      ["a", "b"],
      ["b", "a"],
    ] as const) {
      test(
        `close from ${closer}: onclose once, the far side notices, sends after close reject`,
        async () => {
          const ends = await open();
          const [c, o] = [ends[closer], ends[other]];
          await c.t.close();
          expect(c.closes).toBe(1);
          await c.t.close();
          expect(c.closes).toBe(1);
          await expect(c.t.send(note("late"))).rejects.toThrow();
          if ((options.farSide ?? "onclose") === "onclose") {
            await o.closed;
            expect(o.closes).toBe(1);
          }
          await expect(o.t.send(note("late"))).rejects.toThrow();
        },
        caseTimeout,
      );
    }

    test(
      "start() on a started transport rejects and the pair keeps working",
      async () => {
        const { a, b } = await open();
        await expect(a.t.start()).rejects.toThrow();
        await expect(b.t.start()).rejects.toThrow();
        await a.t.send(note("still"));
        expect(await b.received(1)).toEqual([note("still")]);
      },
      caseTimeout,
    );
  });
}

interface Note {
  jsonrpc: "2.0";
  method: string;
  params: Record<string, any>;
}
const note = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0" as const, method, params });

/** Hook a transport's callbacks: collect messages, count closes, note errors; wait with a failure deadline. */
function watch(t: Transport, timeoutMs: number) {
  const messages: unknown[] = [];
  const problems: string[] = [];
  let wake = () => {};
  let closes = 0;
  let markClosed = () => {};
  const closed = new Promise<void>((r) => (markClosed = r));
  t.onmessage = (m) => {
    messages.push(m);
    wake();
  };
  t.onframeerror = (e) => problems.push(`frame error: ${e.error.message}`);
  t.onerror = (e) => problems.push(`error: ${e.message}`);
  t.onclose = () => {
    closes++;
    markClosed();
  };
  let taken = 0;
  return {
    t,
    problems,
    /** Resolves when `onclose` fires; fails the case after the deadline. */
    get closed() {
      return deadline(closed, timeoutMs, "onclose on the far side");
    },
    get closes() {
      return closes;
    },
    /** The next `n` messages (after those already taken). */
    async received(n: number): Promise<unknown[]> {
      const want = taken + n;
      const arrived = new Promise<void>((resolve) => {
        wake = () => messages.length >= want && resolve();
        wake();
      });
      await deadline(arrived, timeoutMs, `${n} messages (got ${messages.length - taken})`);
      const out = messages.slice(taken, want);
      taken = want;
      return out;
    },
  };
}

async function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fail = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, fail]);
  } finally {
    clearTimeout(timer);
  }
}
