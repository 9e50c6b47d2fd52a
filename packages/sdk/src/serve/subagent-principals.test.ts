/**
 * Subagents served on the served agent belong to the principal that spawned them: another principal neither
 * lists, reads, waits on nor cancels them; an operator sees them all. Real child processes (the scripted
 * child), the Streamable HTTP server with bearer tokens A, B and an operator's, over 127.0.0.1.
 */
import { afterEach, expect, test } from "bun:test";
import { resolve } from "node:path";
import { descendants, killAll } from "../supervisor/__fixtures__/process-tree.ts";
import { registerSubagentSurface } from "../supervisor/mcp-surface.ts";
import { Supervisor } from "../supervisor/supervisor.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "../transport/http-server/index.ts";
import { call, openSession, type RawSession } from "@agentd/test-support/raw-mcp-http";
import { createServedMcp } from "./served-mcp.ts";

const CHILD = resolve(import.meta.dir, "../supervisor/__fixtures__/scripted-child.ts");
const A = "token-a-0123456789abcdef";
const B = "token-b-0123456789abcdef";
const OPS = "token-ops-0123456789abcdef";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let sup: Supervisor | undefined;
let server: StreamableHttpServer | undefined;
afterEach(async () => {
  const pids = sup ? sup.pids().flatMap((p) => [p, ...descendants(p)]) : [];
  await server?.close();
  await sup?.shutdown();
  killAll(pids);
  sup = server = undefined;
});

const tool = (url: URL, s: RawSession, id: number, name: string, args: Record<string, unknown>) =>
  call(url, s, id, "tools/call", { name, arguments: args }).then(
    (r) => r.response.result as { content: Array<{ text: string }>; isError?: boolean; structuredContent?: Record<string, unknown> },
  );

test("B cannot see, read, wait on or cancel A's subagent; the operator sees it", async () => {
  sup = new Supervisor({ model: {}, command: { command: process.execPath, args: [CHILD] }, graceMs: 2_000 });
  const supervisor = sup;
  const self = createServedMcp({
    runner: { run: () => Promise.reject(new Error("no runs in this test")) },
    extend: (mcp, _runs, access) => registerSubagentSurface(mcp, supervisor, access),
  });
  server = await createStreamableHttpServer({
    auth: {
      bearerTokens: [
        { token: A, name: "alice" },
        { token: B, name: "bob" },
        { token: OPS, name: "ops", role: "operator" },
      ],
    },
    onsession: (t) => self.server.connect(t).then(() => {}),
  });
  const url = server.url;
  const [a, b, ops] = await Promise.all([openSession(url, bearer(A)), openSession(url, bearer(B)), openSession(url, bearer(OPS))]);

  const spawned = await tool(url, a, 1, "subagent.spawn", { instruction: "echo:A's private task", async: true });
  const id = spawned.structuredContent?.id as string;
  expect(id).toBeTruthy();
  const done = await tool(url, a, 2, "subagent.wait", { id, timeoutMs: 60_000 });
  expect(done.isError).toBeFalsy();

  // B: the list is empty, the id is unknown to every tool, the resource reads as absent, nothing leaks.
  const listed = await tool(url, b, 3, "subagent.list", {});
  expect(listed.structuredContent).toEqual({ subagents: [] });
  for (const [n, name] of [
    [4, "subagent.result"],
    [5, "subagent.wait"],
    [6, "subagent.cancel"],
  ] as const) {
    const r = await tool(url, b, n, name, { id });
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toContain(`no subagent with id "${id}"`);
    expect(JSON.stringify(r)).not.toContain("private");
  }
  const read = await call(url, b, 7, "resources/read", { uri: `agent://subagent/${id}/result` });
  expect(read.response.error?.code).toBe(-32002);
  expect(JSON.stringify(read.response)).not.toContain("private");

  // A sees its own; the operator sees every principal's.
  expect(((await tool(url, a, 8, "subagent.list", {})).structuredContent!.subagents as unknown[]).length).toBe(1);
  const opsList = (await tool(url, ops, 9, "subagent.list", {})).structuredContent?.subagents as Array<{ id: string }>;
  expect(opsList.map((h) => h.id)).toEqual([id]);
  const opsRead = await call(url, ops, 10, "resources/read", { uri: `agent://subagent/${id}/result` });
  expect(JSON.parse(opsRead.response.result.contents[0].text)).toMatchObject({ id, status: "completed" });
}, 120_000);
