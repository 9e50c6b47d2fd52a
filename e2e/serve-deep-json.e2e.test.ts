/**
 * Deeply nested JSON cannot stall `agentd serve`: a body nested 50,000 levels — in `ping` params, in
 * `agent.run`'s `outputSchema`, in an A2A data part (JSON-RPC) or in A2A message metadata (HTTP+JSON) — is
 * refused before anything walks it, with the limit named, while another principal's `ping` goes on being
 * answered. Over stdio the same frame is refused and the next request answered. The real CLI, over loopback.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { call, openSession, post, request } from "@agentd/test-support/raw-mcp-http";
import { serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";
import { CLI_MAIN } from "@agentd/test-support/cli-process";

const ATTACKER = "attacker-token-0123456789abcdef";
const VICTIM = "victim-token-0123456789abcdef";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const LEVELS = 50_000;
/** A JSON value nested `n` objects deep (about 6 bytes a level): `{"a":{"a":…1…}}`. */
const deep = (n = LEVELS) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
let stdio: ReturnType<typeof Bun.spawn> | undefined;
afterEach(async () => {
  await stopAllServe();
  stdio?.kill("SIGKILL");
  await stdio?.exited;
  stdio = undefined;
  await world?.close();
  world = undefined;
}, 30_000);

describe("agentd serve: deeply nested JSON", () => {
  test("MCP and both A2A bindings refuse it before walking it, naming the limit; another principal's ping is answered meanwhile", async () => {
    world = await serveWorld([{ text: "never asked" }], { onExhausted: "repeat-last" });
    world.ws.writeConfig({});
    const tokens = join(world.ws.dir, "tokens.txt");
    writeFileSync(tokens, `${ATTACKER}\n${VICTIM}\n`);
    const serve = await startServe(["--http", "127.0.0.1:0", "--a2a", "--auth-tokens", tokens, "--grace", "1s"], {
      env: world.env,
      cwd: world.ws.dir,
    });
    const url = serve.url;
    const a2a = new URL("/a2a", url);
    const attacker = await openSession(url, bearer(ATTACKER));
    const victim = await openSession(url, bearer(VICTIM));
    const a2aHeaders = { ...bearer(ATTACKER), "content-type": "application/json", "a2a-version": "1.0" };
    const message = (extra: string) => `{"messageId":"m-${crypto.randomUUID()}","role":"ROLE_USER","parts":[${extra}]`;

    const nested = deep();
    const attacks: Array<() => Promise<{ status: number; text: string }>> = [
      // MCP: ping params, and agent.run's outputSchema.
      () => raw(url, `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":${nested}}}`, attacker.headers),
      () =>
        raw(
          url,
          `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"agent.run","arguments":{"instruction":"x","outputSchema":${nested}}}}`,
          attacker.headers,
        ),
      // A2A JSON-RPC: a data part.
      () => raw(a2a, `{"jsonrpc":"2.0","id":9,"method":"SendMessage","params":{"message":${message(`{"data":${nested}}`)}}}}`, a2aHeaders),
      // A2A HTTP+JSON: message metadata.
      () => raw(new URL("/a2a/rest/message:send", url), `{"message":${message('{"text":"hi"}')},"metadata":${nested}}}`, a2aHeaders),
    ];

    // Four attackers at once, ten requests each in turn; the victim pings as they begin.
    const started = performance.now();
    const batch = Promise.all(
      attacks.map(async (attack) => {
        const out: Array<{ status: number; text: string }> = [];
        for (let i = 0; i < 10; i++) out.push(await attack());
        return out;
      }),
    );
    let batchDone = Number.POSITIVE_INFINITY;
    void batch.then(() => (batchDone = performance.now()));
    const ping = await call(url, victim, 1, "ping");
    const pingDone = performance.now();
    const answers = (await batch).flat();
    console.log(`ping ${(pingDone - started).toFixed(0)} ms, attack batch of ${answers.length} ${(batchDone - started).toFixed(0)} ms`);
    expect(ping.response).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(pingDone).toBeLessThan(batchDone);
    for (const a of answers) {
      expect(`${a.status} ${a.text.slice(0, 300)}`).toStartWith("400 ");
      expect(a.text).toContain("JSON nested more than 256 levels deep is refused");
    }
    // The MCP refusals are JSON-RPC invalid request (-32600).
    for (const a of answers.slice(0, 15)) expect(JSON.parse(a.text).error.code).toBe(-32600);
    // Nothing was run for the attacker.
    expect(world.gateway.requests.length).toBe(0);
  }, 120_000);

  test("over stdio a too-deep frame gets -32600 naming the limit, and the next request is answered", async () => {
    world = await serveWorld([{ text: "never asked" }], { onExhausted: "repeat-last" });
    world.ws.writeConfig({});
    stdio = Bun.spawn([process.execPath, CLI_MAIN, "serve", "--stdio"], {
      cwd: world.ws.dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, XDG_STATE_HOME: process.env.XDG_STATE_HOME, ...world.env },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    const lines = readLines(stdio.stdout as ReadableStream<Uint8Array>);
    const stdin = stdio.stdin as import("bun").FileSink;
    stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } } })}\n`,
    );
    expect((await lines.next()).id).toBe(0);
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    stdin.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${deep()}}}\n`);
    stdin.write(`${JSON.stringify(request(2, "ping"))}\n`);
    const refused = await lines.next();
    expect(refused).toMatchObject({ jsonrpc: "2.0", error: { code: -32600, data: { maxDepth: 256 } } });
    expect(refused.id ?? null).toBeNull();
    expect(refused.error.message).toContain("JSON nested more than 256 levels deep is refused");
    expect(await lines.next()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    stdin.end();
  }, 60_000);
});

async function raw(url: URL, body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const res = await post(url, body, headers);
  return { status: res.status, text: await res.text() };
}

/** JSON lines from a stream, one at a time. */
function readLines(stream: ReadableStream<Uint8Array>): { next(): Promise<Record<string, any>> } {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return {
    async next() {
      for (;;) {
        const nl = buffered.indexOf("\n");
        if (nl >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (line.trim()) return JSON.parse(line);
          continue;
        }
        const { done, value } = await reader.read();
        if (done) throw new Error(`stdout ended; left: ${buffered.slice(0, 200)}`);
        buffered += decoder.decode(value, { stream: true });
      }
    },
  };
}
