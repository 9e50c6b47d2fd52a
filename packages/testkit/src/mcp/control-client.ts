/**
 * The test side of the control channel: change a fake stdio child's resources and tools while a client is
 * connected, and read (or wait for) what it received. Ready once the child has answered `initialize`.
 */
import { request } from "node:http";
import { AgentdError } from "@agentd/sdk/wire";
import type { ControlCommand, ControlReply } from "./control-protocol.ts";
import { DEFAULT_WAIT_MS } from "./recorder.ts";
import type { FakeResourceContent, FakeToolSpec, RecordedCancellation, RecordedNotification, RecordedRequest } from "./types.ts";

/** Talks to the fake server child listening on a unix socket. */
export class FakeServerControl {
  constructor(
    /** The unix socket path the child listens on. */
    readonly socketPath: string,
  ) {}

  /** Change (or add) a resource; the child notifies subscribers. Resolves with how many were notified. */
  async setResource(uri: string, content: FakeResourceContent): Promise<number> {
    return (await this.send({ op: "setResource", uri, content })) as number;
  }

  /**
   * Change (or add) several resources in one command: the child applies every change and sends their
   * notifications at once (a burst, without one request per change). Resolves with the notifications sent.
   */
  async setResources(changes: ReadonlyArray<{ uri: string; content: FakeResourceContent }>): Promise<number> {
    return (await this.send({ op: "setResources", changes: [...changes] })) as number;
  }

  /** Remove a resource. */
  async removeResource(uri: string): Promise<void> {
    await this.send({ op: "removeResource", uri });
  }

  /** Add (or replace) a tool; the child sends `tools/list_changed`. Code hooks cannot cross the process. */
  async addTool(tool: FakeToolSpec): Promise<void> {
    await this.send({ op: "addTool", tool });
  }

  /** Remove a tool. */
  async removeTool(name: string): Promise<void> {
    await this.send({ op: "removeTool", name });
  }

  /** The requests received so far (of one method, if given). */
  async requests(method?: string): Promise<RecordedRequest[]> {
    return (await this.send(method === undefined ? { op: "requests" } : { op: "requests", method })) as RecordedRequest[];
  }

  /** Wait until the child has received at least `min` requests of `method`; resolves with all of them. */
  async waitForRequests(method: string, min = 1, timeoutMs = DEFAULT_WAIT_MS): Promise<RecordedRequest[]> {
    return (await this.send({ op: "requests", method, min, timeoutMs }, timeoutMs)) as RecordedRequest[];
  }

  /** The notifications received so far (of one method, if given). */
  async notifications(method?: string): Promise<RecordedNotification[]> {
    return (await this.send(method === undefined ? { op: "notifications" } : { op: "notifications", method })) as RecordedNotification[];
  }

  /** Wait until the child has received at least `min` cancellations; resolves with all of them. */
  async waitForCancellations(min = 1, timeoutMs = DEFAULT_WAIT_MS): Promise<RecordedCancellation[]> {
    return (await this.send({ op: "cancellations", min, timeoutMs }, timeoutMs)) as RecordedCancellation[];
  }

  private send(command: ControlCommand, waitMs = 0): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          socketPath: this.socketPath,
          path: "/",
          method: "POST",
          headers: { "content-type": "application/json" },
          timeout: waitMs + DEFAULT_WAIT_MS,
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => {
            try {
              const reply = JSON.parse(body) as ControlReply;
              if (reply.ok) resolve(reply.value);
              else reject(new AgentdError("E_USAGE", `fake MCP server control (${command.op}): ${reply.error}`));
            } catch {
              reject(new AgentdError("E_TRANSPORT", `fake MCP server control (${command.op}): unreadable reply`));
            }
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error("timed out")));
      req.on("error", (e) =>
        reject(
          new AgentdError(
            "E_TRANSPORT",
            `fake MCP server control (${command.op}) at ${this.socketPath}: ${e.message} (is the child running and initialized?)`,
          ),
        ),
      );
      req.end(JSON.stringify(command));
    });
  }
}
