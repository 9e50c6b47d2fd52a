/**
 * What a user reads when a stdio MCP server misbehaves, over real pipes to a real process: each failure is
 * reported at once, as one line naming the server and what went wrong.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { memoryLogger } from "../../log.ts";
import type { McpClient } from "../../mcp/client/client.ts";
import type { ManagedMcpClient } from "../../mcp/client/managed/managed-client.ts";
import { AgentdError } from "../../wire/errors.ts";
import { connectManagedServer, connectServer } from "./connect-server.ts";

const SERVER = join(import.meta.dir, "..", "__fixtures__", "misbehaving-server.ts");
const entry = (mode: string) => ({ command: process.execPath, args: [SERVER, mode] });
const clients: Array<McpClient | ManagedMcpClient> = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

/** The rejection of `p` (fails the test if it resolves). */
async function failure(p: Promise<unknown>): Promise<AgentdError> {
  try {
    await p;
  } catch (e) {
    expect(AgentdError.isInstance(e)).toBe(true);
    return e as AgentdError;
  }
  throw new Error("expected a failure");
}

describe("a misbehaving stdio server, as the user sees it", () => {
  test("dies at start: the error says it exited, with its code and its last stderr lines", async () => {
    const e = await failure(connectManagedServer("bad", entry("die-at-start"), { logger: memoryLogger() }));
    expect(e.code).toBe("E_UPSTREAM");
    expect(e.message).toBe(
      "MCP server 'bad' is unavailable: exited with code 3; last stderr: starting misbehaving server | loading settings from /nonexistent/settings.toml | fatal: settings file not found",
    );
    // The single-connection path says the same.
    const again = await failure(connectServer("bad", entry("die-at-start"), { logger: memoryLogger() }));
    expect(again.message).toBe(e.message);
  }, 30_000);

  test("a shell wrapper that dies at once (possibly before the handshake began): the same line", async () => {
    const fast = { command: "/bin/sh", args: ["-c", "echo first >&2; echo boom >&2; exit 3"] };
    for (let i = 0; i < 3; i++) {
      const e = await failure(connectManagedServer("fast", fast, { logger: memoryLogger() }));
      expect(e.message).toBe("MCP server 'fast' is unavailable: exited with code 3; last stderr: first | boom");
    }
  }, 30_000);

  test("a malformed tools/list result names the server", async () => {
    const client = await connectManagedServer("bad", entry("bad-tools-list"), { logger: memoryLogger() });
    clients.push(client);
    const e = await failure(client.listTools());
    expect(e.code).toBe("E_UPSTREAM");
    expect(e.message).toStartWith("invalid tools/list result from MCP server 'bad': ");
    expect(e.message).toContain("result.tools");
  }, 30_000);

  test("a response over the frame limit fails its request at once, naming the server and the limit (not a 60 s timeout)", async () => {
    // The test's own timeout (30 s) is below the request timeout (60 s): waiting for the timeout fails it.
    const client = await connectManagedServer("big", entry("oversize"), { logger: memoryLogger(), requestTimeoutMs: 60_000 });
    clients.push(client);
    const e = await failure(client.callTool("big", {}));
    expect(e.code).toBe("E_UPSTREAM");
    expect(e.message).toBe(
      `MCP server 'big' sent a tools/call response over the ${4 * 1024 * 1024}-byte frame limit (maxFrameBytes); it was discarded`,
    );
    // The connection carries on: the next request is answered.
    expect((await client.listTools()).map((t) => t.name)).toEqual(["big"]);
  }, 30_000);
});
