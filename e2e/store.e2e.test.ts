/**
 * `agentd store` through the real CLI, spoken to by the official MCP SDK client (a peer we did not write):
 * tools, a subscription's notifications/resources/updated, and the one-line usage errors.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { CLI_MAIN } from "@agentd/test-support/cli-process";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

test("agentd store --dir serves the five tools and key subscriptions to the official SDK client", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-cli-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const client = new Client({ name: "official", version: "1" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_MAIN, "store", "--dir", join(dir, "docs")],
    stderr: "pipe",
  });
  await client.connect(transport);
  cleanup.push(() => client.close());

  expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["compare_and_set", "delete", "get", "list", "put"]);
  expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);

  const updated: string[] = [];
  let heard: () => void = () => {};
  const heardOnce = new Promise<void>((r) => (heard = r));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
    heard();
  });
  await client.subscribeResource({ uri: "store://doc/jobs/1" });

  const put = await client.callTool({ name: "put", arguments: { key: "jobs/1", value: { step: 1 } } });
  expect(put.structuredContent).toEqual({ key: "jobs/1", version: 1 });
  await heardOnce;
  expect(updated).toEqual(["store://doc/jobs/1"]);

  const lost = await client.callTool({ name: "compare_and_set", arguments: { key: "jobs/1", expectedVersion: 0, value: "x" } });
  expect(lost.structuredContent).toEqual({ key: "jobs/1", ok: false, version: 1, value: { step: 1 } });
  const got = await client.callTool({ name: "get", arguments: { key: "jobs/1" } });
  expect(got.structuredContent).toEqual({ key: "jobs/1", found: true, version: 1, value: { step: 1 } });
  const bad = await client.callTool({ name: "put", arguments: { key: "../x", value: 1 } });
  expect(bad.isError).toBe(true);
});

test("agentd store without a backend: one line saying what to pass (no stack), exit 2", async () => {
  const proc = Bun.spawn([process.execPath, CLI_MAIN, "store"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "" },
  });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  expect(code).toBe(2);
  // The CLI's convention: the error, then where to read more; never a stack trace.
  expect(stderr.trim().split("\n")[0]).toBe("agentd: agentd store needs a backend: --dir PATH or --redis redis://HOST:PORT");
  expect(stderr).not.toContain("    at ");
});

test.skipIf(process.platform !== "linux")(
  "two stores on one directory: the second refuses in one line, exit 2; after kill -9 of the holder a new one starts",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-store-cli-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const docs = join(dir, "docs");
    const connect = async () => {
      const client = new Client({ name: "official", version: "1" });
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_MAIN, "store", "--dir", docs], stderr: "pipe" });
      await client.connect(transport);
      cleanup.push(() => client.close());
      return { client, pid: transport.pid as number };
    };
    const first = await connect();
    cleanup.push(() => killIfAlive(first.pid));
    expect((await first.client.callTool({ name: "put", arguments: { key: "jobs/1", value: "first" } })).structuredContent).toEqual({
      key: "jobs/1",
      version: 1,
    });

    // stdin stays open: only the lock can make it stop.
    const second = Bun.spawn([process.execPath, CLI_MAIN, "store", "--dir", docs], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    cleanup.push(() => killIfAlive(second.pid));
    const [code, stderr] = await Promise.all([second.exited, new Response(second.stderr).text()]);
    expect(code).toBe(2);
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    const line = lines[0];
    expect(line).toStartWith(`agentd: store directory ${docs} is in use by another store (pid ${first.pid} on `);
    expect(line).toEndWith(": stop it first, or give this store another directory");
    expect(stderr).not.toContain("    at ");

    // The holder dies without a word: its lock goes with it, and a new store needs nobody to clear it.
    process.kill(first.pid, "SIGKILL");
    const deadline = Date.now() + 10_000;
    while (isAlive(first.pid) && Date.now() < deadline) await Bun.sleep(10);
    expect(isAlive(first.pid)).toBe(false);
    const third = await connect();
    cleanup.push(() => killIfAlive(third.pid));
    expect((await third.client.callTool({ name: "get", arguments: { key: "jobs/1" } })).structuredContent).toEqual({
      key: "jobs/1",
      found: true,
      version: 1,
      value: "first",
    });
    expect(
      (await third.client.callTool({ name: "compare_and_set", arguments: { key: "jobs/1", expectedVersion: 1, value: "third" } }))
        .structuredContent,
    ).toMatchObject({ ok: true, version: 2 });
  },
  60_000,
);

/** Whether `pid` runs (a zombie counts as gone). */
function isAlive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

function killIfAlive(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

test("agentd store --dir: a valid 200-character key of ':' and '/' is written and read; a failure names no server path", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-cli-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const client = new Client({ name: "official", version: "1" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI_MAIN, "store", "--dir", dir], stderr: "pipe" }));
  cleanup.push(() => client.close());
  const key = `a${":/".repeat(99)}z`;
  const put = await client.callTool({ name: "put", arguments: { key, value: "long" } });
  expect(put.isError).toBeFalsy();
  expect(put.structuredContent).toEqual({ key, version: 1 });
  expect((await client.callTool({ name: "get", arguments: { key } })).structuredContent).toEqual({
    key,
    found: true,
    version: 1,
    value: "long",
  });
  expect((await client.callTool({ name: "list", arguments: { prefix: "a:" } })).structuredContent).toEqual({ keys: [{ key, version: 1 }] });
  // A document the server cannot read (a directory in its place): the client learns the key and the error only.
  mkdirSync(join(dir, "k.json"));
  const failed = await client.callTool({ name: "get", arguments: { key: "k" } });
  expect(failed.isError).toBe(true);
  expect(JSON.stringify(failed.content)).toContain(`the store could not read \\"k\\": EISDIR`);
  expect(JSON.stringify(failed.content)).not.toContain(dir);
});

/** Run `agentd store` to its exit (SIGKILL after `withinMs`): exit code, stderr, how long it took. */
async function storeExit(args: string[], withinMs: number) {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, CLI_MAIN, "store", ...args], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", AGENT_LOG_FORMAT: "json" },
  });
  cleanup.push(() => killIfAlive(proc.pid));
  const killer = setTimeout(() => killIfAlive(proc.pid), withinMs);
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]).finally(() => clearTimeout(killer));
  return { code, stderr, ms: performance.now() - started };
}

describe("agentd store --redis at a Redis that cannot be reached: exit 4 at once, one line naming the URL without credentials", () => {
  test("nothing listens on the port (connection refused)", async () => {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = closed.port;
    closed.stop(true);
    const r = await storeExit(["--redis", `redis://agentd:secretpw@127.0.0.1:${port}/2`, "--http", "127.0.0.1:0"], 20_000);
    expect(r.code).toBe(4);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    // The reason in parentheses is the Redis client's own ("Connection closed" from Bun 1.4).
    expect(lines[0]).toMatch(
      new RegExp(
        `^agentd: cannot reach Redis at redis://127\\.0\\.0\\.1:${port}/2 \\([^)]+\\): check --redis \\(or AGENT_STORE_REDIS\\) and that Redis is up and reachable$`,
      ),
    );
    expect(r.stderr).not.toContain("secretpw");
    console.error(`unreachable Redis (refused): exit 4 after ${r.ms.toFixed(0)} ms`);
  }, 30_000);

  test("a server that accepts and never answers (the bounded wait)", async () => {
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    cleanup.push(() => silent.stop(true));
    const r = await storeExit(["--redis", `redis://:secretpw@127.0.0.1:${silent.port}`], 20_000);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`agentd: cannot reach Redis at redis://127.0.0.1:${silent.port} (no answer within 5 s): check --redis`);
    expect(r.stderr).not.toContain("secretpw");
    expect(r.stderr).not.toContain("store.listening");
    console.error(`silent Redis: exit 4 after ${r.ms.toFixed(0)} ms`);
  }, 30_000);
});
