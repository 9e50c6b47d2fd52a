/**
 * A scripted A2A v1.0 agent served by the independent `@a2a-js/sdk` (its express handlers) on 127.0.0.1,
 * the peer agentd's client is proved against. What it does depends on the message text:
 * - `echo <text>`: working (with a status message), an artifact `echo: <text>`, completed; usage in the
 *   task's metadata (`usage: { inputTokens, outputTokens }`);
 * - `ask`: input-required with the question "Which colour?"; the follow-up on the same task completes
 *   with `colour: <answer>`;
 * - `hang`: working until cancelled (then canceled), or until `finish(id)` (then an artifact `finished`, completed);
 * - anything else: a direct message reply (no task).
 * Every received message (with its metadata) and every cancel is recorded for assertions.
 * Run as a script (`bun a2a-peer.ts [--v03-only] [--no-streaming]`) it prints its port on stdout.
 */
import type { AddressInfo } from "node:net";
import express from "express";
import {
  AgentEvent,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type PushNotificationSender,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";

/** Options of the peer. */
export interface PeerOptions {
  /** Declare only a v0.3 interface in the card. */
  v03Only?: boolean;
  /** Declare `capabilities.streaming: false`. */
  noStreaming?: boolean;
  /** Require this bearer token on every A2A request. */
  token?: string;
  /** Declare only the HTTP+JSON interface. */
  restOnly?: boolean;
  /** Refuse HTTP+JSON SubscribeToTask requests (HTTP 501), as an agent without it would. */
  noSubscribe?: boolean;
  /** Declare and send push notifications (the SDK's own store and sender). */
  push?: boolean;
}

/** A running peer. */
export interface Peer {
  url: string;
  received: { text: string; taskId: string; contextId: string; metadata: Record<string, unknown> | undefined }[];
  cancelled: string[];
  /** Resolves when a `hang` task has started (its id). */
  hanging: Promise<string>;
  /** Resolves with the id of the first task cancelled. */
  cancelledOnce: Promise<string>;
  /** Complete a hanging task. */
  finish(taskId: string): void;
  /** Close every open connection (streams included) abruptly; the peer keeps listening. */
  drop(): void;
  /** Resolves with the task id when an HTTP+JSON SubscribeToTask has begun answering. */
  subscribed: Promise<string>;
  /** Resolves with the first push config a client registered (`push` peers). */
  pushConfig: Promise<{ url: string; token: string }>;
  /** Every push notification the peer's sender was given, in order. */
  pushed: unknown[];
  close(): Promise<void>;
}

// The SDK's in-memory enums: ROLE_AGENT = 2; task states by proto number.
const S = { working: 2, completed: 3, canceled: 5, inputRequired: 6 } as const;
const text = (value: string) => ({ content: { $case: "text" as const, value } });

/** Start the peer on an ephemeral loopback port. */
export async function startPeer(options: PeerOptions = {}): Promise<Peer> {
  const received: Peer["received"] = [];
  const cancelled: string[] = [];
  let hung: (id: string) => void = () => {};
  const hanging = new Promise<string>((r) => (hung = r));
  let cancelledFirst: (id: string) => void = () => {};
  const cancelledOnce = new Promise<string>((r) => (cancelledFirst = r));
  const waiting = new Map<string, (how: "cancel" | "finish") => void>();
  const card = {
    name: "scripted",
    description: "A scripted test agent",
    version: "1.0.0",
    supportedInterfaces: [] as { url: string; protocolBinding: string; protocolVersion: string }[],
    capabilities: { streaming: !options.noStreaming, pushNotifications: options.push === true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      { id: "echo", name: "Echo", description: "Repeats the text after 'echo'", tags: ["test"] },
      { id: "colour", name: "Colour", description: "Asks for a colour ('ask')", tags: ["test"] },
    ],
  };
  const status = (ctx: RequestContext, state: number, message?: string) =>
    AgentEvent.statusUpdate({
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      status: { state, ...(message ? { message: { messageId: crypto.randomUUID(), role: 2, parts: [text(message)] } } : {}) },
    } as never);
  const executor: AgentExecutor = {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      const msg = ctx.userMessage as unknown as {
        parts: { content: { $case: string; value: string } }[];
        metadata?: Record<string, unknown>;
      };
      const said = msg.parts.map((p) => (p.content.$case === "text" ? p.content.value : "")).join("");
      received.push({ text: said, taskId: ctx.taskId, contextId: ctx.contextId, metadata: msg.metadata });
      const task = (state: number, metadata?: Record<string, unknown>) =>
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state },
          history: [],
          artifacts: [],
          ...(metadata ? { metadata } : {}),
        } as never);
      if (ctx.task && ctx.task.status?.state === S.inputRequired) {
        bus.publish(task(S.working));
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId: ctx.taskId,
            contextId: ctx.contextId,
            artifact: { artifactId: "answer", name: "answer", parts: [text(`colour: ${said}`)] },
          } as never),
        );
        bus.publish(status(ctx, S.completed));
      } else if (said.startsWith("echo ")) {
        bus.publish(task(S.working, { usage: { inputTokens: 7, outputTokens: 3 } }));
        bus.publish(status(ctx, S.working, "echoing"));
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId: ctx.taskId,
            contextId: ctx.contextId,
            artifact: { artifactId: "echo", name: "echo", parts: [text(`echo: ${said.slice(5)}`)] },
          } as never),
        );
        bus.publish(status(ctx, S.completed));
      } else if (said === "ask") {
        bus.publish(task(S.working));
        bus.publish(status(ctx, S.inputRequired, "Which colour?"));
      } else if (said === "hang") {
        bus.publish(task(S.working));
        bus.publish(status(ctx, S.working, "started, will not finish"));
        hung(ctx.taskId);
        const how = await new Promise<"cancel" | "finish">((r) => waiting.set(ctx.taskId, r));
        waiting.delete(ctx.taskId);
        if (how === "cancel") return;
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId: ctx.taskId,
            contextId: ctx.contextId,
            artifact: { artifactId: "done", name: "done", parts: [text("finished")] },
          } as never),
        );
        bus.publish(status(ctx, S.completed));
      } else {
        bus.publish(
          AgentEvent.message({
            messageId: crypto.randomUUID(),
            contextId: ctx.contextId,
            role: 2,
            parts: [text(`you said: ${said}`)],
          } as never),
        );
      }
      bus.finished();
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      cancelled.push(taskId);
      cancelledFirst(taskId);
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId: "", status: { state: S.canceled } } as never));
      bus.finished();
      waiting.get(taskId)?.("cancel");
    },
  };
  let registered: (c: { url: string; token: string }) => void = () => {};
  const pushConfig = new Promise<{ url: string; token: string }>((r) => (registered = r));
  const pushed: unknown[] = [];
  const pushStore = new InMemoryPushNotificationStore();
  const save = pushStore.save.bind(pushStore);
  pushStore.save = (taskId, context, config) => (registered({ url: config.url, token: config.token }), save(taskId, context, config));
  const sender = new DefaultPushNotificationSender(pushStore);
  const recording: PushNotificationSender = { send: (event, context, task) => (pushed.push(event), sender.send(event, context, task)) };
  const handler = options.push
    ? new DefaultRequestHandler(card as never, new InMemoryTaskStore(), executor, undefined, pushStore, recording)
    : new DefaultRequestHandler(card as never, new InMemoryTaskStore(), executor);
  const app = express();
  if (options.token)
    app.use("/a2a", (req, res, next) =>
      req.headers.authorization === `Bearer ${options.token}`
        ? next()
        : res.status(401).json({ error: { code: 401, message: "unauthorized" } }),
    );
  let subscribedOnce: (id: string) => void = () => {};
  const subscribed = new Promise<string>((r) => (subscribedOnce = r));
  app.use("/a2a/rest/tasks", (req, res, next) => {
    const m = /^\/([^/:]+):subscribe$/.exec(req.path);
    if (!m) return next();
    if (options.noSubscribe)
      return res.status(501).json({ error: { code: 501, status: "UNIMPLEMENTED", message: "SubscribeToTask is not offered" } });
    // Its first write is the task snapshot: from then on the subscription sees every event.
    const write = res.write.bind(res) as (...a: unknown[]) => boolean;
    res.write = ((...a: unknown[]) => (subscribedOnce(decodeURIComponent(m[1]!)), write(...a))) as typeof res.write;
    next();
  });
  // A v0.3-only peer answers the v0.3 wire (the SDK's compatibility layer) and lists only 0.3 interfaces.
  const compat = options.v03Only ? { legacyCompat: { enabled: true } } : {};
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler, ...compat }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, ...compat }));
  app.use("/a2a/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, ...compat }));
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const version = options.v03Only ? "0.3" : "1.0";
  if (!options.restOnly) card.supportedInterfaces.push({ url: `${url}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: version });
  card.supportedInterfaces.push({ url: `${url}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: version });
  return {
    url,
    received,
    cancelled,
    hanging,
    cancelledOnce,
    subscribed,
    pushConfig,
    pushed,
    finish: (taskId) => waiting.get(taskId)?.("finish"),
    drop: () => server.closeAllConnections(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const release of waiting.values()) release("cancel");
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.main) {
  const peer = await startPeer({ v03Only: process.argv.includes("--v03-only"), noStreaming: process.argv.includes("--no-streaming") });
  process.stdout.write(`${peer.url}\n`);
  process.on("SIGTERM", () => void peer.close().then(() => process.exit(0)));
}
