/**
 * Remote A2A agents as tools: each configured agent is one tool `a2a:NAME` taking `{ message, taskId?,
 * contextId? }`. One tool per agent, not per skill: A2A skills describe what an agent can do but a message
 * names no skill, so per-skill tools would send the same request under several names; the skills go into
 * the tool's description instead.
 *
 * A call sends the message with the run id in its metadata (`agentd.dev/run-id`, as MCP calls carry it in
 * `_meta`), follows the task — streamed when the card declares streaming (a dropped stream re-attached
 * with SubscribeToTask, then GetTask), else `returnImmediately` and GetTask polls — reports each status change as progress and as an `a2a.status` record, and returns when
 * the task ends or asks for input. When the run's signal aborts (deadline, budget, cancel) while the task
 * is still going, the task is cancelled on the remote agent (CancelTask) before the abort propagates.
 */
import { A2aClient, type SendMessageRequest } from "./index.ts";
import { startPushReceiver, type PushReceiver } from "./push-receiver.ts";
import { sleep } from "../../_internal/sleep.ts";
import type { Logger } from "../../log.ts";
import type { ToolCallContext, ToolCallOutcome, ToolDescriptor, ToolSet } from "../../loop/tools.ts";
import { RUN_ID_META_KEY } from "../../mcp/protocol/meta.ts";
import { followByPush, followStream } from "./follow-task.ts";
import { emptyReply, foldEvent, foldTask, replyOutcome, settled, stateWord, type A2aReply } from "./reply.ts";

/** One configured remote agent (the config's `a2aAgents` entry). */
export interface A2aAgentConfig {
  /** The agent's URL: its card is read at `URL/.well-known/agent-card.json` (or the `.json` card URL given). */
  url: string;
  /** Headers sent with every request (e.g. `Authorization: Bearer ${TOKEN}`). */
  headers?: Record<string, string>;
  /** Whether a run fails when the agent cannot be reached (default true); false leaves its tool out. */
  required?: boolean;
  /** The binding to prefer when the card offers both (default JSON-RPC). */
  binding?: "JSONRPC" | "HTTP+JSON";
  /**
   * Follow tasks through push notifications when the card declares them: a webhook on 127.0.0.1 (so for
   * agents that can reach this host's loopback) instead of holding a stream open. Default false.
   */
  push?: boolean;
}

/** Options of an {@link A2aToolSet}. */
export interface A2aToolSetOptions {
  /** Tools offered besides the remote agents (names not starting with `a2a:` go there). */
  next?: ToolSet;
  logger?: Logger;
  fetch?: typeof fetch;
  /** How long a CancelTask sent on abort may take (default 5 s). */
  cancelTimeoutMs?: number;
}

/** The prefix of A2A tool names (`a2a:NAME`; scope globs such as `a2a:*` select them). */
export const A2A_TOOL_PREFIX = "a2a:";
const MAX_DESCRIPTION = 2000;

const INPUT_SCHEMA = {
  type: "object",
  properties: {
    message: { type: "string", description: "The message to send (a request, or the answer to the agent's question)." },
    taskId: { type: "string", description: "To answer an agent that asked for input: the taskId it gave." },
    contextId: { type: "string", description: "To continue a conversation: the contextId the agent gave." },
  },
  required: ["message"],
  additionalProperties: false,
} as const;

/** A ToolSet over configured remote A2A agents, chained in front of `next`. */
export class A2aToolSet implements ToolSet {
  private readonly clients = new Map<string, Promise<A2aClient>>();
  /** CancelTask requests under way: `settle()` waits for them so a closing agent does not drop them. */
  private readonly cancelling = new Set<Promise<void>>();
  /** The webhook listener, started the first time a call follows a task by push. */
  private receiver: Promise<PushReceiver> | undefined;

  constructor(
    private readonly agents: Readonly<Record<string, A2aAgentConfig>>,
    private readonly options: A2aToolSetOptions = {},
  ) {}

  private client(name: string, config: A2aAgentConfig): Promise<A2aClient> {
    let c = this.clients.get(name);
    if (!c) {
      c = A2aClient.connect(config.url, { name, headers: config.headers, preferBinding: config.binding, fetch: this.options.fetch });
      // A failed discovery is tried again next time (the agent may come up later).
      c.catch(() => this.clients.delete(name));
      this.clients.set(name, c);
    }
    return c;
  }

  async list(): Promise<ToolDescriptor[]> {
    const own = await Promise.all(Object.entries(this.agents).map(([name, config]) => this.describe(name, config)));
    const rest = this.options.next ? await this.options.next.list() : [];
    return [...own.flat(), ...rest];
  }

  private async describe(name: string, config: A2aAgentConfig): Promise<ToolDescriptor[]> {
    let client: A2aClient;
    try {
      client = await this.client(name, config);
    } catch (e) {
      if (config.required !== false) throw e;
      this.options.logger?.warn("a2a.agent_skipped", { agent: name, error: e instanceof Error ? e.message : String(e) });
      return [];
    }
    const card = client.card;
    const skills = (card.skills ?? []).map((s) => `- ${s.name}${s.description ? `: ${s.description}` : ""}`).join("\n");
    const description =
      `Send a message to the remote agent '${name}' (${card.name}${card.description ? `: ${card.description}` : ""}) and get its answer.` +
      (skills ? `\nIts skills:\n${skills}` : "");
    return [{ name: `${A2A_TOOL_PREFIX}${name}`, description: description.slice(0, MAX_DESCRIPTION), inputSchema: { ...INPUT_SCHEMA } }];
  }

  async call(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallOutcome> {
    const agent = name.startsWith(A2A_TOOL_PREFIX) ? name.slice(A2A_TOOL_PREFIX.length) : undefined;
    const config = agent !== undefined && Object.hasOwn(this.agents, agent) ? this.agents[agent] : undefined;
    if (agent === undefined || !config) {
      if (this.options.next) return this.options.next.call(name, args, ctx);
      return { text: `Unknown tool '${name}'.`, isError: true };
    }
    let client: A2aClient;
    try {
      client = await this.client(agent, config);
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      return { text: e instanceof Error ? e.message : String(e), isError: true };
    }
    const reply = emptyReply();
    if (typeof args.taskId === "string") reply.taskId = args.taskId;
    // The CancelTask starts the moment the run aborts (not when the fetch unwinds), so an agent closing
    // right after a deadline finds it in `cancelling` and waits for it.
    let cancel: Promise<void> | undefined;
    const onAbort = () => {
      const c = (cancel = this.cancelRemote(agent, client, reply, ctx.runId));
      this.cancelling.add(c);
      void c.finally(() => this.cancelling.delete(c));
    };
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    try {
      await this.follow(
        agent,
        client,
        this.request(args, ctx.runId),
        reply,
        ctx,
        config.push === true && client.card.capabilities?.pushNotifications === true && client.via.version === undefined,
      );
      return replyOutcome(agent, name, reply);
    } catch (e) {
      if (ctx.signal.aborted) {
        await cancel;
        throw e;
      }
      return { text: `Tool '${name}' failed: ${e instanceof Error ? e.message : String(e)}`, isError: true };
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
    }
  }

  private request(args: Record<string, unknown>, runId: string): SendMessageRequest {
    return {
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text: String(args.message ?? "") }],
        taskId: typeof args.taskId === "string" ? args.taskId : undefined,
        contextId: typeof args.contextId === "string" ? args.contextId : undefined,
        metadata: { [RUN_ID_META_KEY]: runId },
      },
    };
  }

  /** Send and follow the task until it settles, reporting status changes. */
  private async follow(
    agent: string,
    client: A2aClient,
    request: SendMessageRequest,
    reply: A2aReply,
    ctx: ToolCallContext,
    push: boolean,
  ): Promise<void> {
    let changes = 0;
    let last = "";
    const report = () => {
      const key = `${reply.state}\u0000${reply.statusText ?? ""}`;
      if (key === last) return;
      last = key;
      changes++;
      const message = `${agent}: ${stateWord(reply.state)}${reply.statusText ? ` — ${reply.statusText.slice(0, 200)}` : ""}`;
      this.options.logger?.info("a2a.status", { runId: ctx.runId, agent, taskId: reply.taskId, state: stateWord(reply.state) });
      ctx.onprogress?.({ progress: changes, message });
    };
    const following = { agent, client, reply, ctx, report, logger: this.options.logger };
    if (push) {
      this.receiver ??= startPushReceiver({ logger: this.options.logger }).catch((e: unknown) => {
        this.receiver = undefined;
        throw e;
      });
      await followByPush(following, request, (await this.receiver).register());
      return;
    }
    if (client.streaming) {
      await followStream(following, client.sendStreamingMessage(request, ctx.signal));
      if (reply.taskId === undefined || settled(reply)) return;
      // Re-attaching did not see the task end: ask where it stands, then poll.
      foldTask(reply, await client.getTask(reply.taskId, { signal: ctx.signal }));
      report();
    } else {
      const first = await client.sendMessage({ ...request, configuration: { returnImmediately: true } }, ctx.signal);
      if (first.message) foldEvent(reply, { message: first.message });
      else foldTask(reply, first.task);
      report();
    }
    // A peer without streaming is followed by polling, so the task id is known early enough to cancel it.
    for (let wait = 250; !settled(reply); wait = Math.min(wait * 2, 5000)) {
      await sleep(wait, ctx.signal);
      foldTask(reply, await client.getTask(reply.taskId as string, { signal: ctx.signal }));
      report();
    }
  }

  /** Resolve once every CancelTask sent on an abort has been answered (or timed out); then stop the webhook listener. */
  async settle(): Promise<void> {
    await Promise.all([...this.cancelling]);
    const receiver = this.receiver;
    this.receiver = undefined;
    await (await receiver?.catch(() => undefined))?.close();
  }

  /** Cancel the remote task the aborted call was following (bounded; a failure is logged, not thrown). */
  private async cancelRemote(agent: string, client: A2aClient, reply: A2aReply, runId: string): Promise<void> {
    if (!reply.taskId || settled(reply)) return;
    try {
      const task = await client.cancelTask(reply.taskId, {
        metadata: { [RUN_ID_META_KEY]: runId },
        signal: AbortSignal.timeout(this.options.cancelTimeoutMs ?? 5000),
      });
      this.options.logger?.info("a2a.cancelled", { runId, agent, taskId: reply.taskId, state: stateWord(task.status.state) });
    } catch (e) {
      this.options.logger?.warn("a2a.cancel_failed", {
        runId,
        agent,
        taskId: reply.taskId,
        error: e instanceof Error ? e.message : String(e),
      });
    }
  }
}
