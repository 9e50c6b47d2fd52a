/**
 * A server builds the method table of the revisions its sessions speak, and no other: each table is
 * schemas the process holds for its life, and a process whose peers all speak one revision should not pay
 * for four. Checked in a server process of its own (`__fixtures__/revision-tables-server.ts`: a test
 * process shares its modules with every other test file), spoken to over real HTTP.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { jsonLines } from "@agentd/test-support/json-lines";
import { initializeRequest, POST_HEADERS, post, SseReader } from "@agentd/test-support/raw-mcp-http";
import { LATEST_REVISION, type ProtocolRevision } from "./codec.ts";

const started: Bun.Subprocess<"pipe", "pipe", "inherit">[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) {
    child.stdin.end();
    if (child.exitCode === null && child.signalCode === null) await child.exited;
  }
});

// `initialize` comes before any revision is agreed: the server reads it with the newest handshake revision's
// table, so a session of an older revision builds that one too — and still none of the others.
for (const revision of ["2025-11-25", "2025-06-18"] as const satisfies readonly ProtocolRevision[]) {
  const expected = revision === LATEST_REVISION ? [revision] : [LATEST_REVISION, revision];
  test(`a server whose session speaks ${revision} builds the tables of ${expected.join(" and ")}, no other`, async () => {
    const server = Bun.spawn([process.execPath, join(import.meta.dir, "__fixtures__", "revision-tables-server.ts")], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit",
    });
    started.push(server);
    const out = jsonLines(server.stdout);
    const { url } = (await out.next()).value as { url: string };
    const builtNow = async () => {
      server.stdin.write("built?\n");
      server.stdin.flush();
      return ((await out.next()).value as { built: string[] }).built;
    };
    expect(await builtNow()).toEqual([]);

    const res = await post(url, initializeRequest(0, revision));
    expect(res.status).toBe(200);
    const sessionId = res.headers.get("mcp-session-id") ?? "";
    const [answer] = await new SseReader(res).until(0);
    expect((answer?.message.result as { protocolVersion?: string } | undefined)?.protocolVersion).toBe(revision);
    const headers = { ...POST_HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": revision };
    const initialized = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    expect(initialized.status).toBe(202);
    const listed = await post(url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers);
    const [tools] = await new SseReader(listed).until(1);
    expect((tools?.message.result as { tools: unknown[] } | undefined)?.tools).toHaveLength(1);

    expect(await builtNow()).toEqual(expected);
  });
}
