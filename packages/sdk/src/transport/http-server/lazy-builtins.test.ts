/**
 * An HTTP server that needs none of them leaves Node's `http`, `https`, `net`, `tls`, `crypto` and
 * `child_process` modules unloaded. Under Bun these are JavaScript modules of the runtime costing ~5.5 MB
 * of resident memory together (Bun 1.4.4), a sixth of what an idle agentd server holds at start, while
 * the Bun adapter, a server without a proxy in front, without a mutual-TLS front and without bearer tokens,
 * and the stdio parts an application imports beside it, call none of them (`_internal/node-builtins.ts`,
 * and the dynamic imports of `adapter/node.ts` and `mtls-front.ts`).
 *
 * Checked where it matters, in memory: in a server process of its own that has answered an `initialize`,
 * loading the six modules afterwards must still cost memory (it costs nothing if the server had loaded
 * them already). The bound is well under the modules' cost and well over the noise of a settled RSS
 * (±0.5 MB).
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { jsonLines } from "@agentd/test-support/json-lines";
import { initializeRequest, post, SseReader } from "@agentd/test-support/raw-mcp-http";

/** Less than half of what the six modules cost when nothing had loaded them. */
const MIN_UNSPENT_KB = 1536;

const started: Bun.Subprocess<"pipe", "pipe", "inherit">[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) {
    child.stdin.end();
    if (child.exitCode === null && child.signalCode === null) await child.exited;
  }
});

test("a server with default options loads neither the Node adapter nor the mutual-TLS front", async () => {
  const { modules } = await serverAfterInitialize("measure");
  const loaded = modules.filter((m) => /http-server\/(adapter\/node|mtls-front)\.ts$/.test(m));
  expect(loaded).toEqual([]);
});

test(`loading Node's http, https, net, tls, crypto and child_process after the server answered initialize costs ≥ ${MIN_UNSPENT_KB} kB`, async () => {
  const { rssKb: before, after } = await serverAfterInitialize("measure", "load");
  expect(after - before).toBeGreaterThanOrEqual(MIN_UNSPENT_KB);
});

/** Start the server process, answer one initialize over HTTP, then send `commands` and collect the answers. */
async function serverAfterInitialize(...commands: string[]): Promise<{ rssKb: number; modules: string[]; after: number }> {
  const server = Bun.spawn([process.execPath, join(import.meta.dir, "__fixtures__", "lazy-builtins-server.ts")], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  started.push(server);
  const out = jsonLines(server.stdout);
  const { url } = (await out.next()).value as { url: string };
  const res = await post(url, initializeRequest());
  expect(res.status).toBe(200);
  const [answer] = await new SseReader(res).until(0);
  expect(answer?.message.result).toBeDefined();
  const answers: Array<{ rssKb: number; modules: string[] }> = [];
  for (const command of commands) {
    server.stdin.write(`${command}\n`);
    server.stdin.flush();
    answers.push((await out.next()).value as { rssKb: number; modules: string[] });
  }
  return { ...answers[0]!, after: answers[1]?.rssKb ?? Number.NaN };
}
