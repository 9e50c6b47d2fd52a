/**
 * A stdio server spawned ahead of the agent (transport/prelaunch.ts) is the process the agent's connection
 * then uses, once; a server nobody takes is stopped by discarding. Real processes over real pipes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { memoryLogger } from "../../log.ts";
import type { McpClient } from "../../mcp/client/client.ts";
import { discardPrelaunchedServers, prelaunchStdioServer } from "../../transport/prelaunch.ts";
import type { StdioChildTransport } from "../../transport/stdio-child.ts";
import { connectServer, transportFor } from "./connect-server.ts";

const SERVER = join(import.meta.dir, "..", "__fixtures__", "misbehaving-server.ts");
const entry = { command: process.execPath, args: [SERVER, "well-behaved"] };

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const clients: McpClient[] = [];
const transports: StdioChildTransport[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const transport of transports.splice(0)) await transport.close();
  await discardPrelaunchedServers();
});

describe("prelaunched stdio servers", () => {
  test("the agent's connection to the same server takes the running process; it stops with the connection", async () => {
    const pid = await prelaunchStdioServer({ name: "early", ...entry, logger: memoryLogger() });
    expect(pid).toBeNumber();
    const client = await connectServer("early", entry, { logger: memoryLogger() });
    clients.push(client);
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["big"]);
    expect(alive(pid as number)).toBe(true);
    await client.close();
    expect(alive(pid as number)).toBe(false);
  }, 30_000);

  test("taken once: the next transport for the server spawns its own process", async () => {
    const pid = await prelaunchStdioServer({ name: "once", ...entry, logger: memoryLogger() });
    const first = transportFor("once", entry, memoryLogger()) as StdioChildTransport;
    const second = transportFor("once", entry, memoryLogger()) as StdioChildTransport;
    transports.push(first, second);
    expect(first.pid).toBe(pid as number);
    expect(second.pid).toBeUndefined();
  }, 30_000);

  test("another name, command or argument list is not taken; discarding stops what nobody took", async () => {
    const pid = await prelaunchStdioServer({ name: "spare", ...entry, logger: memoryLogger() });
    const otherName = transportFor("spare-2", entry, memoryLogger()) as StdioChildTransport;
    const otherArgs = transportFor("spare", { ...entry, args: [SERVER, "bad-tools-list"] }, memoryLogger()) as StdioChildTransport;
    transports.push(otherName, otherArgs);
    expect(otherName.pid).toBeUndefined();
    expect(otherArgs.pid).toBeUndefined();
    expect(alive(pid as number)).toBe(true);
    await discardPrelaunchedServers();
    expect(alive(pid as number)).toBe(false);
  }, 30_000);
});
