/**
 * `agentd serve --http` with two users' tokens: `agent.run` with a `conversationId` continues the caller's
 * own conversation (the model sees the earlier exchange, the result names it), and the other user is
 * refused it with one line — neither reads it nor adds to it. The real CLI in a child process, over loopback.
 */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";
import { serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
afterEach(async () => {
  await stopAllServe();
  await world?.close();
  world = undefined;
}, 30_000);

test("agent.run conversationId: the owner's follow-up sees the first exchange; another principal never sees it", async () => {
  world = await serveWorld(
    [(req) => ({ text: `seen ${req.messages.filter((m) => m.role === "user").length} requests: ${req.messages.at(-1)?.text}` })],
    { onExhausted: "repeat-last" },
  );
  world.ws.writeConfig({});
  const users = join(world.ws.dir, "tokens.txt");
  writeFileSync(users, `${ALICE}\n${BOB}\n`);
  const serve = await startServe(["--http", "127.0.0.1:0", "--auth-tokens", users, "--grace", "1s"], {
    env: { ...world.env, XDG_STATE_HOME: join(world.ws.dir, "state") },
    cwd: world.ws.dir,
  });
  const url = serve.url;
  const alice = await openSession(url, bearer(ALICE));
  const bob = await openSession(url, bearer(BOB));
  const run = async (session: typeof alice, id: number, instruction: string) =>
    (await call(url, session, id, "tools/call", { name: "agent.run", arguments: { instruction, conversationId: "inbox" } })).response
      .result;

  const first = await run(alice, 1, "summarise the inbox");
  expect(first.content[0].text).toBe("seen 1 requests: summarise the inbox");
  expect(first.structuredContent.conversationId).toBe("inbox");
  const second = await run(alice, 2, "now draft replies");
  expect(second.content[0].text).toBe("seen 2 requests: now draft replies");
  const sent = world.gateway.requests[1]!.messages.slice(1).map((m) => m.text);
  expect(sent).toEqual(["summarise the inbox", "seen 1 requests: summarise the inbox", "now draft replies"]);

  // Ids are per principal: Bob's "inbox" is his own, and holds nothing of Alice's.
  const bobs = await run(bob, 3, "what did alice ask?");
  expect(bobs.content[0].text).toBe("seen 1 requests: what did alice ask?");
  expect(world.gateway.requests[2]!.messages.map((m) => m.text).join("\n")).not.toContain("inbox");
  // Alice's conversation is as she left it: her next run sees her two exchanges only.
  expect((await run(alice, 4, "and the third?")).content[0].text).toBe("seen 3 requests: and the third?");
}, 60_000);
