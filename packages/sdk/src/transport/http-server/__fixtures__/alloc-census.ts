/**
 * The driver of the transport's allocation census (`request-allocs.test.ts`, `sse-allocs.test.ts`): starts
 * `alloc-census-server.ts` with the collector held off, opens sessions, warms them up with echo calls, then
 * counts the heap's objects by type over a window of requests, less an empty window. Every object a request
 * allocates counts, dead or alive: the collector's work per request.
 */
import { join } from "node:path";
import { readBodyPrefix } from "../../../_internal/bounded-body.ts";

const CONNECTIONS = 8;
const WARM_UP = 5000;
const REQUESTS = 2000;
/**
 * Far above what the census allocates, and the collection timers waiting forever: the collector never runs
 * (also the environment of `bench/profile/request-allocs.ts`'s servers).
 */
export const NO_GC = {
  BUN_JSC_smallHeapSize: "8000000000",
  BUN_JSC_mediumHeapSize: "8000000000",
  BUN_JSC_largeHeapSize: "8000000000",
  BUN_JSC_percentCPUPerMBForEdenTimer: "0.000000001",
  BUN_JSC_percentCPUPerMBForFullTimer: "0.000000001",
  BUN_GC_TIMER_DISABLE: "1",
  BUN_IDLE_GC_SECONDS: "100000",
};
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const REVISION = "2025-11-25";

/** Checks one echo call's answer (`id` is the call's request id); throws if it is not the echo. */
export type AnswerCheck = (answer: Response, id: number) => Promise<void>;

/** The census server child, to stop after each test. */
export interface Census {
  /** Heap objects per request by type, over {@link REQUESTS} echo calls after the warm-up. */
  perRequest(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** Start the census server in `mode`; each answer of the load is checked by `check`. */
export function startCensus(mode: "json" | "sse", check: AnswerCheck): Census {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "alloc-census-server.ts")], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, ...NO_GC, CENSUS_RESPONSE_MODE: mode },
  });
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const nextLine = async (): Promise<Record<string, number>> => {
    for (;;) {
      const nl = buffered.indexOf("\n");
      if (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        return JSON.parse(line);
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("the census server exited");
      buffered += value;
    }
  };
  const command = async (c: string) => {
    child.stdin.write(`${c}\n`);
    await child.stdin.flush();
    return nextLine();
  };
  return {
    async perRequest() {
      const { port } = await nextLine();
      const url = `http://127.0.0.1:${port}/mcp`;
      const sids = await Promise.all(Array.from({ length: CONNECTIONS }, () => openSession(url)));
      await load(url, sids, WARM_UP / CONNECTIONS, check);
      let perRequest: Record<string, number> = {};
      // Every request makes a `Response`: fewer counted means a collection ran after all; that window again.
      for (let attempt = 0; (perRequest.Response ?? 0) < 1; attempt++) {
        if (attempt === 5) throw new Error("a collection ran in every window");
        await command("mark");
        const empty = await command("count");
        await command("mark");
        await load(url, sids, REQUESTS / CONNECTIONS, check);
        const full = await command("count");
        perRequest = {};
        for (const type of new Set([...Object.keys(full), ...Object.keys(empty)]))
          perRequest[type] = ((full[type] ?? 0) - (empty[type] ?? 0)) / REQUESTS;
      }
      return perRequest;
    },
    async stop() {
      child.kill();
      await child.exited;
    },
  };
}

/** One session on `url`: initialize, then initialized; its id. */
async function openSession(url: string): Promise<string> {
  const init = { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: "census", version: "1" } };
  const r = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: init }),
  });
  const sid = r.headers.get("mcp-session-id") as string;
  // Only drained: the session lives in its header, not in the answer.
  await readBodyPrefix(r);
  const headers = { ...HEADERS, "mcp-session-id": sid, "mcp-protocol-version": REVISION };
  const n = await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  await readBodyPrefix(n);
  return sid;
}

/** `each` echo calls in every session, one at a time per session. */
async function load(url: string, sids: string[], each: number, check: AnswerCheck): Promise<void> {
  await Promise.all(
    sids.map(async (sid) => {
      const headers = { ...HEADERS, "mcp-session-id": sid, "mcp-protocol-version": REVISION };
      for (let i = 1; i <= each; i++) {
        const body = `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`;
        await check(await fetch(url, { method: "POST", headers, body }), i);
      }
    }),
  );
}

/** The objects of all types, per request. */
export const totalOf = (perRequest: Record<string, number>): number => Object.values(perRequest).reduce((s, n) => s + n, 0);
