/**
 * A2A SSE streams are capped per principal (`limits.maxA2aStreamsPerPrincipal`), like MCP streams are by
 * sessions: one token opening SubscribeToTask streams on a working task is refused past the cap (429 with
 * `Retry-After`, on JSON-RPC, HTTP+JSON and v0.3 alike), another principal is not affected, and a stream the
 * client closes gives its slot back. Real HTTP on 127.0.0.1, two bearer tokens.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { gate, serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";

setDefaultTimeout(30_000);

const A = "token-a-0123456789abcdef";
const B = "token-b-0123456789abcdef";
let s: ServedAgent | undefined;
const open: ReadableStreamDefaultReader<Uint8Array>[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.cancel().catch(() => {})));
  await s?.close();
  s = undefined;
});

const headers = (token: string) => ({ "content-type": "application/json", authorization: `Bearer ${token}`, "a2a-version": "1.0" });
const rpc = (token: string, method: string, params: Record<string, unknown>, version = "1.0") =>
  fetch(`${s!.base}/a2a`, {
    method: "POST",
    headers: { ...headers(token), "a2a-version": version },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });

/** Open a SubscribeToTask stream as `token`; an accepted one is held open (its first event read). */
async function subscribe(
  token: string,
  id: string,
): Promise<{ status: number; reader?: ReadableStreamDefaultReader<Uint8Array>; res: Response }> {
  const res = await rpc(token, "SubscribeToTask", { id });
  if (res.status !== 200) return { status: res.status, res };
  const reader = res.body!.getReader();
  open.push(reader);
  expect((await reader.read()).done).toBe(false);
  return { status: 200, reader, res };
}

test("a principal holds at most maxA2aStreamsPerPrincipal open streams; others are not affected; a closed stream frees its slot", async () => {
  const g = gate();
  s = await serveA2aAgent({
    steps: [g.step],
    http: {
      auth: {
        bearerTokens: [
          { token: A, name: "a" },
          { token: B, name: "b" },
        ],
      },
      limits: { maxA2aStreamsPerPrincipal: 3 },
    },
  });
  const sent = (await (
    await rpc(A, "SendMessage", {
      message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "work" }] },
      configuration: { returnImmediately: true },
    })
  ).json()) as any;
  const id = sent.result.task.id as string;
  await g.entered;

  const held = [await subscribe(A, id), await subscribe(A, id), await subscribe(A, id)];
  expect(held.map((h) => h.status)).toEqual([200, 200, 200]);

  const fourth = await subscribe(A, id);
  expect(fourth.status).toBe(429);
  expect(fourth.res.headers.get("retry-after")).toBe("5");
  expect(((await fourth.res.json()) as any).error.message).toContain("already holds 3 open A2A streams");
  const rest = await fetch(`${s.base}/a2a/rest/tasks/${id}:subscribe`, { headers: headers(A) });
  expect(rest.status).toBe(429);
  expect(((await rest.json()) as any).error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
  const v03 = await rpc(A, "tasks/resubscribe", { id }, "0.3");
  expect(v03.status).toBe(429);
  await v03.body?.cancel();
  const v03Rest = await fetch(`${s.base}/a2a/rest/v1/tasks/${id}:subscribe`, {
    headers: { authorization: `Bearer ${A}`, "a2a-version": "0.3" },
  });
  expect(v03Rest.status).toBe(429);
  await v03Rest.body?.cancel();

  // Another principal's streams are its own (B may not see A's task, but its refusal is not the cap's).
  const other = await rpc(B, "SubscribeToTask", { id });
  expect(other.status).not.toBe(429);
  await other.body?.cancel();

  // A closes one stream: its slot comes back once the server has seen the close.
  await held[0]!.reader!.cancel();
  let again = await subscribe(A, id);
  for (let i = 0; again.status === 429 && i < 200; i++) {
    await again.res.body?.cancel();
    await new Promise((r) => setTimeout(r, 10));
    again = await subscribe(A, id);
  }
  expect(again.status).toBe(200);
  g.release();
});
