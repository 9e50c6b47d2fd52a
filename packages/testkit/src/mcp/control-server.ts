/**
 * The child side of the control channel (see `control-protocol.ts`): an HTTP server on a unix socket that
 * applies commands to the fake server. Runtime note: `node:http` works the same under Bun and Node.
 */
import { createServer, type Server } from "node:http";
import { rmSync } from "node:fs";
import type { FakeMcpServer } from "./fake-mcp-server.ts";
import type { ControlCommand, ControlReply } from "./control-protocol.ts";

/** A running control server. */
export interface ControlServer {
  close(): Promise<void>;
}

/** Serve control commands for `fake` on the unix socket `path` (a stale socket file is replaced). */
export async function serveControl(path: string, fake: FakeMcpServer): Promise<ControlServer> {
  // A socket file left by a child that crashed would make listen fail with EADDRINUSE.
  rmSync(path, { force: true });
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      void run(fake, body).then((reply) => {
        res.writeHead(reply.ok ? 200 : 400, { "content-type": "application/json" });
        res.end(JSON.stringify(reply));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function run(fake: FakeMcpServer, body: string): Promise<ControlReply> {
  try {
    const command = JSON.parse(body) as ControlCommand;
    switch (command.op) {
      case "setResource":
        return { ok: true, value: await fake.setResource(command.uri, command.content) };
      case "setResources": {
        const notified = await Promise.all(command.changes.map((c) => fake.setResource(c.uri, c.content)));
        return { ok: true, value: notified.reduce((a, b) => a + b, 0) };
      }
      case "removeResource":
        fake.removeResource(command.uri);
        return { ok: true, value: null };
      case "addTool":
        fake.addTool(command.tool);
        return { ok: true, value: null };
      case "removeTool":
        fake.removeTool(command.name);
        return { ok: true, value: null };
      case "requests": {
        const min = command.min ?? 0;
        const matching = () => fake.requests.filter((r) => command.method === undefined || r.method === command.method);
        if (min > 0) await fake.waitForRequest(() => matching().length >= min, command.timeoutMs);
        return { ok: true, value: matching() };
      }
      case "notifications":
        return { ok: true, value: fake.notifications.filter((n) => command.method === undefined || n.method === command.method) };
      case "cancellations": {
        const min = command.min ?? 0;
        if (min > 0) await fake.waitForCancellation(() => fake.cancellations.length >= min, command.timeoutMs);
        return { ok: true, value: fake.cancellations };
      }
      default:
        return { ok: false, error: `unknown control command ${JSON.stringify((command as { op?: unknown }).op)}` };
    }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}
