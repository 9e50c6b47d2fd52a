/**
 * The server-only entries (`@agentd/sdk/mcp/server`, `@agentd/sdk/transport/http-server`) give a server what
 * it needs and load none of the client's modules: Bun runs the package from its sources, where an entry's
 * barrel loads every module it names, so a server importing the wide entries (`/mcp`, `/transport`) pays for
 * the MCP client, the managed client, the HTTP client, OAuth and the stdio parts at start (55 modules of 156, 1.0–1.2 MB
 * of RSS a server keeps: bench/NOTES.md). Checked in a child process that serves one session from each pair.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

/** The client's side of the SDK: what a server never calls. */
const CLIENT = /^(mcp\/client\/|transport\/http-client\/|transport\/stdio-|transport\/prelaunch|_internal\/self-command)/;

async function modulesOfServer(entries: "server" | "wide"): Promise<string[]> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "__fixtures__", "server-entry-modules.ts"), entries], {
    stdout: "pipe",
    stderr: "pipe",
    env: process.env,
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  const report = JSON.parse(out) as { status: number[]; session: boolean; modules: string[] };
  expect({ status: report.status, session: report.session }).toEqual({ status: [200, 202], session: true });
  return report.modules;
}

test("a server built from the server-only entries serves a session and has loaded no client module", async () => {
  const modules = await modulesOfServer("server");
  expect(modules).toEqual(
    expect.arrayContaining(["mcp/server/server.ts", "transport/http-server/server.ts", "transport/http-server/session.ts"]),
  );
  expect(modules.filter((m) => CLIENT.test(m))).toEqual([]);
});

test("the same server from the wide entries loads the client's modules (what the check above would see)", async () => {
  const modules = await modulesOfServer("wide");
  expect(modules).toEqual(expect.arrayContaining(["mcp/client/client.ts", "transport/http-client/streamable-http-client.ts"]));
});
