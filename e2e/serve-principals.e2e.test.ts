/**
 * `agentd serve --http` with two users' tokens and an operator's (`--operator-tokens`), and `--public-url`:
 * one user cannot see or reuse another's runs, the operator sees them all, and the RFC 9728 challenge names
 * the public URL. The real CLI in a child process, over loopback.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { call, initializeRequest, openSession, post, type RawSession } from "@agentd/test-support/raw-mcp-http";
import { serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef";
const OPS = "ops-token-0123456789abcdef";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
afterEach(async () => {
  await stopAllServe();
  await world?.close();
  world = undefined;
}, 30_000);

const read = async (url: URL, s: RawSession, id: number, uri: string) => (await call(url, s, id, "resources/read", { uri })).response;
const json = (r: Record<string, any>) => JSON.parse(r.result.contents[0].text);

describe("agentd serve --http: principals", () => {
  test("a user's runs are its own; --operator-tokens sees them all; --public-url is what the challenge names", async () => {
    world = await serveWorld([(req) => ({ text: `done: ${req.messages.find((m) => m.role === "user")?.text}` })], {
      onExhausted: "repeat-last",
    });
    world.ws.writeConfig({});
    const users = join(world.ws.dir, "tokens.txt");
    const ops = join(world.ws.dir, "operators.txt");
    writeFileSync(users, `${ALICE}\n${BOB}\n`);
    writeFileSync(ops, `${OPS}\n`);
    const serve = await startServe(
      [
        "--http",
        "127.0.0.1:0",
        "--auth-tokens",
        users,
        "--operator-tokens",
        ops,
        "--public-url",
        "https://agentd.example.com/mcp",
        "--grace",
        "1s",
      ],
      { env: world.env, cwd: world.ws.dir },
    );
    const url = serve.url;
    const challenge = await post(url, initializeRequest());
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get("www-authenticate")).toContain(
      `resource_metadata="https://agentd.example.com/.well-known/oauth-protected-resource"`,
    );

    const alice = await openSession(url, bearer(ALICE));
    const bob = await openSession(url, bearer(BOB));
    const operator = await openSession(url, bearer(OPS));
    const ran = await call(url, alice, 1, "tools/call", {
      name: "agent.run",
      arguments: { instruction: "alice's private task", runId: "job-1" },
    });
    expect(ran.response.result.content[0].text).toBe("done: alice's private task");

    expect(json(await read(url, bob, 2, "agent://status"))).toMatchObject({ running: [], runsStarted: 0 });
    expect((await read(url, bob, 3, "agent://runs/job-1")).error.message).toBe("no run job-1");
    const bobs = await call(url, bob, 4, "tools/call", { name: "agent.run", arguments: { instruction: "bob's task", runId: "job-1" } });
    expect(bobs.response.result.content[0].text).toBe("done: bob's task");

    const all = json(await read(url, operator, 5, "agent://status"));
    expect(all.runsStarted).toBe(2);
    expect(Object.keys(all.principals).sort()).toEqual(["bearer:bearer#0", "bearer:bearer#1"]);
    expect(json(await read(url, operator, 6, "agent://runs/job-1")).principal).toMatch(/^bearer:bearer#[01]$/);
  }, 60_000);

  test("another user's 110 quick runs leave a user's finished run readable, and its retry is answered already done", async () => {
    world = await serveWorld([(req) => ({ text: `done: ${req.messages.find((m) => m.role === "user")?.text}` })], {
      onExhausted: "repeat-last",
    });
    world.ws.writeConfig({});
    const users = join(world.ws.dir, "tokens.txt");
    writeFileSync(users, `${ALICE}\n${BOB}\n`);
    const serve = await startServe(["--http", "127.0.0.1:0", "--auth-tokens", users, "--grace", "1s"], {
      env: world.env,
      cwd: world.ws.dir,
    });
    const url = serve.url;
    const alice = await openSession(url, bearer(ALICE));
    const bob = await openSession(url, bearer(BOB));
    const ran = await call(url, alice, 1, "tools/call", {
      name: "agent.run",
      arguments: { instruction: "alice's task", runId: "keep-me" },
    });
    expect(ran.response.result.content[0].text).toBe("done: alice's task");

    // Bob's flood, ten at a time: more finished runs than the history's count bound.
    for (let batch = 0; batch < 11; batch++)
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          call(url, bob, 100 + batch * 10 + i, "tools/call", { name: "agent.run", arguments: { instruction: `bob ${batch}-${i}` } }).then(
            (r) => expect(r.response.result.isError).toBeUndefined(),
          ),
        ),
      );
    expect(json(await read(url, bob, 300, "agent://status")).runsSucceeded).toBe(110);

    const record = json(await read(url, alice, 2, "agent://runs/keep-me"));
    expect(record).toMatchObject({ runId: "keep-me", status: "succeeded", result: { text: "done: alice's task" } });
    const retry = await call(url, alice, 3, "tools/call", {
      name: "agent.run",
      arguments: { instruction: "alice's task", runId: "keep-me" },
    });
    expect(retry.response.result.isError).toBeUndefined();
    expect(retry.response.result.structuredContent).toMatchObject({
      runId: "keep-me",
      stopReason: "already done",
      text: "done: alice's task",
    });
    expect(json(await read(url, alice, 4, "agent://status")).runsStarted).toBe(1);
  }, 120_000);
});
