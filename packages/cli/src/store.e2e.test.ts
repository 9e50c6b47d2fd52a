/**
 * `agentd store` through the real CLI, spoken to by the official MCP SDK client (a peer we did not write):
 * tools, a subscription's notifications/resources/updated, and the one-line usage errors.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { CLI_MAIN } from "./__fixtures__/cli-harness.ts";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

test("agentd store --dir serves the five tools and key subscriptions to the official SDK client", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-cli-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const client = new Client({ name: "official", version: "1" });
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_MAIN, "store", "--dir", join(dir, "docs")], stderr: "pipe" });
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
  const proc = Bun.spawn([process.execPath, CLI_MAIN, "store"], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  expect(code).toBe(2);
  // The CLI's convention: the error, then where to read more; never a stack trace.
  expect(stderr.trim().split("\n")[0]).toBe("agentd: agentd store needs a backend: --dir PATH or --redis redis://HOST:PORT");
  expect(stderr).not.toContain("    at ");
});
