/**
 * A method's schemas, and the schema module behind them, are made when that method is first validated: an idle
 * server (its sessions initialized, each with a GET stream open, nothing else asked) loads the lifecycle's
 * schemas and no other schema module — not tools, content, resources, prompts, completion, logging, sampling,
 * elicitation, roots, tasks, the tasks extension or the other revisions: their schemas were most of an idle
 * server's memory at start (bench/NOTES.md, idle sessions). The first `tools/call` then loads
 * the tools' schemas and is checked as before: a valid call answered, a malformed one refused with -32602 and
 * the same message. Checked in a server process of its own (`__fixtures__/schemas-on-first-use-server.ts`:
 * what a process has loaded is only visible from inside it), spoken to over real HTTP.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { jsonLines } from "@agentd/test-support/json-lines";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";

/** Schema modules an idle 2025-11-25 session has no use for (`wire/schemas/NAME.ts`). */
const UNUSED_WHEN_IDLE = [
  "completion.ts",
  "content.ts",
  "elicitation.ts",
  "logging.ts",
  "methods-2025-03-26.ts",
  "methods-2025-06-18.ts",
  "methods-2026-07-28.ts",
  "prompts.ts",
  "resources.ts",
  "roots.ts",
  "sampling.ts",
  "tasks.ts",
  "tasks-extension.ts",
  "tools.ts",
];

const started: Bun.Subprocess<"pipe", "pipe", "inherit">[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) {
    child.stdin.end();
    if (child.exitCode === null && child.signalCode === null) await child.exited;
  }
});

/** The server process, its URL, and a way to ask which schema modules it has loaded. */
async function serverProcess(): Promise<{ url: string; loaded(): Promise<string[]> }> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "__fixtures__", "schemas-on-first-use-server.ts")], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  started.push(child);
  const out = jsonLines(child.stdout);
  const { url } = (await out.next()).value as { url: string };
  return {
    url,
    async loaded() {
      child.stdin.write("modules\n");
      child.stdin.flush();
      return ((await out.next()).value as { modules: string[] }).modules;
    },
  };
}

test("an idle session loads the lifecycle's schemas only; the first tools/call loads the tools' and is checked as before", async () => {
  const server = await serverProcess();
  const session = await openSession(server.url);
  const stream = new AbortController();
  const get = await fetch(server.url, { headers: { ...session.headers, accept: "text/event-stream" }, signal: stream.signal });
  expect(get.status).toBe(200);

  const idle = await server.loaded();
  expect(idle).toContain("lifecycle.ts");
  expect(idle.filter((m) => UNUSED_WHEN_IDLE.includes(m))).toEqual([]);

  const answer = async (id: number, params: Record<string, unknown>) =>
    (await call(server.url, session, id, "tools/call", params)).response;
  expect((await answer(1, { name: "echo", arguments: { text: "hi" } })).result).toEqual({ content: [{ type: "text", text: "hi" }] });
  expect((await answer(2, { name: 5 })).error).toEqual({
    code: -32602,
    message: "Invalid params for tools/call: params.name: Invalid type: Expected string but received 5",
  });
  expect(await server.loaded()).toContain("tools.ts");
  stream.abort();
});
