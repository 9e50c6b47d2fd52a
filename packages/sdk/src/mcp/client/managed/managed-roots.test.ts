/**
 * Roots replaced on a managed client (a configuration reload does this): the real server-everything over
 * stdio is told (`notifications/roots/list_changed`), and after its process is killed the reconnected
 * session declares the new roots, not the configured ones; a client with roots off sends nothing.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { StdioChildTransport } from "../../../transport/stdio-child.ts";
import { next } from "./__fixtures__/crashy.ts";
import { ManagedMcpClient } from "./managed-client.ts";

setDefaultTimeout(60_000);

const EVERYTHING = resolve(import.meta.dir, "../../../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function everything(roots: Array<{ uri: string; name: string }> | undefined) {
  const transports: StdioChildTransport[] = [];
  const client = new ManagedMcpClient({
    name: "everything",
    transportFactory: () => {
      const t = new StdioChildTransport({
        name: "everything",
        command: process.execPath,
        args: [EVERYTHING],
        closeGraceMs: 500,
        termGraceMs: 500,
      });
      transports.push(t);
      return t;
    },
    clientInfo: { name: "test", version: "0" },
    reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
    client: roots ? { capabilities: { roots } } : undefined,
  });
  cleanups.push(() => client.close());
  return { client, livePid: () => transports.at(-1)!.pid! };
}

const rootsText = async (client: ManagedMcpClient) => JSON.stringify((await client.callTool("get-roots-list", {})).content);

test.skipIf(!Bun.file(EVERYTHING).size)(
  "replaced roots are notified, and a reconnect declares them instead of the configured ones",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-managed-roots-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const a = { uri: pathToFileURL(join(dir, "alpha")).href, name: "alpha" };
    const b = { uri: pathToFileURL(join(dir, "beta")).href, name: "beta" };
    const { client, livePid } = everything([a]);
    await client.start({ timeoutMs: 20_000 });
    expect(await rootsText(client)).toContain(a.uri);

    const asked = new Promise<void>((res) => client.current!.on("rootsListed", () => res()));
    await client.setRoots([b]);
    await asked;

    const reconnected = next(client.events, "reconnected");
    process.kill(livePid(), "SIGKILL");
    await reconnected;
    const text = await rootsText(client);
    expect(text).toContain(b.uri);
    expect(text).not.toContain(a.uri);
  },
);

test.skipIf(!Bun.file(EVERYTHING).size)("with roots off, replacing roots sends nothing and the server still has none", async () => {
  const { client } = everything(undefined);
  await client.start({ timeoutMs: 20_000 });
  await client.setRoots([{ uri: "file:///tmp", name: "tmp" }]);
  expect(await rootsText(client)).not.toContain("file:///tmp");
});
