/**
 * A shutdown answers every request it already read: with `agentd serve --grace 1s` and a model that never
 * answers, SIGTERM (or stdin's end) leaves `agent.run` over MCP and `SendMessage` over both A2A bindings in
 * flight; when the grace runs out each gets a final answer — a JSON-RPC error saying the run was cancelled by
 * the shutdown, the A2A task canceled — before the connection closes. The real CLI, over loopback and pipes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { openSession, post, request, SseReader } from "@agentd/test-support/raw-mcp-http";
import { gate, serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { childEnv, startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";
import { CLI_MAIN } from "@agentd/test-support/cli-process";

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
let stall: ReturnType<typeof gate> | undefined;
let stdio: ReturnType<typeof Bun.spawn> | undefined;
afterEach(async () => {
  await stopAllServe();
  stdio?.kill("SIGKILL");
  await stdio?.exited;
  stdio = undefined;
  stall?.open();
  await world?.close();
  world = stall = undefined;
}, 30_000);

/** A world whose model never answers; `entered(n)` resolves once n model requests have arrived. */
async function stalledWorld() {
  stall = gate();
  const held = stall;
  let count = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  world = await serveWorld(
    [
      async () => {
        count++;
        for (const w of waiters.filter((w) => count >= w.n)) w.resolve();
        await held.promise;
        return { text: "too late" };
      },
    ],
    { onExhausted: "repeat-last" },
  );
  world.ws.writeConfig({});
  return {
    world,
    entered: (n: number) => new Promise<void>((resolve) => (count >= n ? resolve() : waiters.push({ n, resolve }))),
  };
}

const CANCELLED = "run cancelled by shutdown (SIGTERM)";

describe("agentd serve: the grace ends with an answer to every request in flight", () => {
  test("HTTP: agent.run over MCP gets a JSON-RPC error; SendMessage over A2A JSON-RPC and HTTP+JSON gets its task canceled, a stream ends with it", async () => {
    const { world, entered } = await stalledWorld();
    const serve = await startServe(["--http", "127.0.0.1:0", "--a2a", "--grace", "1s"], { env: world.env, cwd: world.ws.dir });
    const url = serve.url;
    const session = await openSession(url);
    const mcp = post(url, request(5, "tools/call", { name: "agent.run", arguments: { instruction: "take forever" } }), session.headers);
    const a2aHeaders = { "content-type": "application/json", "a2a-version": "1.0" };
    const message = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] });
    const jsonRpc = fetch(new URL("/a2a", url), {
      method: "POST",
      headers: a2aHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", id: 6, method: "SendMessage", params: { message: message("a2a json-rpc") } }),
    });
    const rest = fetch(new URL("/a2a/rest/message:send", url), {
      method: "POST",
      headers: a2aHeaders,
      body: JSON.stringify({ message: message("a2a rest") }),
    });
    const streamed = fetch(new URL("/a2a", url), {
      method: "POST",
      headers: { ...a2aHeaders, accept: "text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SendStreamingMessage", params: { message: message("a2a stream") } }),
    }).then((r) => r.text());
    const reader = new SseReader(await mcp);
    await entered(4);

    const exited = serve.stop("SIGTERM", 20_000);
    const [mcpAnswer] = (await reader.until(5)).slice(-1);
    expect(mcpAnswer!.message).toMatchObject({ jsonrpc: "2.0", id: 5, error: { code: -32000 } });
    expect(mcpAnswer!.message.error.message).toContain(CANCELLED);

    const rpc = await (await jsonRpc).json();
    expect(rpc.id).toBe(6);
    expect(rpc.result.task.status.state).toBe("TASK_STATE_CANCELED");
    expect(JSON.stringify(rpc.result.task.status)).toContain(CANCELLED);

    const restResponse = await rest;
    expect(restResponse.status).toBe(200);
    const restBody = await restResponse.json();
    expect(restBody.task.status.state).toBe("TASK_STATE_CANCELED");
    expect(JSON.stringify(restBody.task.status)).toContain(CANCELLED);
    // The stream's last event is the task's final status, canceled.
    const events = (await streamed)
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => JSON.parse(l.slice(5)));
    expect(events.at(-1).result.statusUpdate.status.state).toBe("TASK_STATE_CANCELED");
    expect(await exited).toBe(143);
  }, 60_000);

  test("stdio: stdin closed with agent.run in flight; the answer comes before stdout closes", async () => {
    const { world, entered } = await stalledWorld();
    stdio = Bun.spawn([process.execPath, CLI_MAIN, "serve", "--stdio", "--grace", "1s"], {
      cwd: world.ws.dir,
      env: childEnv(world.env),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    const stdin = stdio.stdin as import("bun").FileSink;
    const out = new Response(stdio.stdout as ReadableStream<Uint8Array>).text();
    stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } } })}\n`,
    );
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    stdin.write(`${JSON.stringify(request(1, "tools/call", { name: "agent.run", arguments: { instruction: "take forever" } }))}\n`);
    stdin.flush();
    await entered(1);
    stdin.end();
    const lines = (await out)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(await stdio.exited).toBe(0);
    const answer = lines.find((m) => m.id === 1);
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32000 } });
    expect(answer!.error.message).toContain("run cancelled by shutdown (stdin-closed)");
  }, 60_000);
});
