/**
 * `A2aClient`: agentd's client of a remote A2A v1.0 agent. `A2aClient.connect(url)` reads the agent card at
 * `/.well-known/agent-card.json` (or the card URL given), picks the JSON-RPC or HTTP+JSON interface from
 * `supportedInterfaces`, and then offers the methods a delegating agent needs: SendMessage (blocking),
 * SendStreamingMessage (SSE), SubscribeToTask (SSE, after a dropped stream), GetTask and CancelTask. Replies are checked against the v1.0 shapes.
 *
 * ```ts
 * const client = await A2aClient.connect("https://agents.example/research", { headers: { Authorization: `Bearer ${token}` } });
 * const reply = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hi" }] } });
 * ```
 */
import * as v from "valibot";
import { BODY_LIMITS, readBoundedText } from "../../_internal/bounded-body.ts";
import { fetchFollowingRedirects } from "../../_internal/redirects.ts";
import { AgentdError } from "../../wire/errors.ts";
import { AgentCardSchema, chooseInterface, type AgentCard, type ChosenInterface, type ClientBinding } from "./agent-card.ts";
import { A2A_VERSION, createBinding, type A2aBinding } from "./bindings.ts";
import {
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from "./wire-types.ts";

/** The well-known path of the agent card (A2A v1.0, "Agent Discovery"). */
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

/** Options of {@link A2aClient.connect}. */
export interface A2aClientOptions {
  /** The agent's name in errors and logs (default: the card's name). */
  name?: string;
  /** Headers sent with every request, card included (e.g. `Authorization: Bearer …`). */
  headers?: Record<string, string>;
  /** The binding to prefer when the card offers both (default JSON-RPC). */
  preferBinding?: ClientBinding;
  /** Injected fetch (tests, proxies). */
  fetch?: typeof fetch;
  /**
   * Most bytes read of one reply (default 16 MiB; the agent card: 1 MiB). Past it the read stops, the
   * connection is closed and the call fails with one `E_UPSTREAM` line naming the endpoint and the limit.
   */
  maxResponseBytes?: number;
  signal?: AbortSignal;
}

/** The card URL for an agent URL: the URL itself when it names a `.json` card, else its well-known card. */
export function agentCardUrl(url: string): string {
  const u = new URL(url);
  if (u.pathname.endsWith(".json")) return u.href;
  // Like the reference SDK: the card sits under the agent's URL (at the origin's root for a bare host).
  return u.origin + u.pathname.replace(/\/+$/, "") + AGENT_CARD_PATH;
}

/** Read and check an agent card. */
export async function fetchAgentCard(url: string, options: A2aClientOptions = {}): Promise<AgentCard> {
  const cardUrl = agentCardUrl(url);
  const who = options.name ?? url;
  let res: Response;
  try {
    // The version header matters for the card too: a server answering both versions gives a request without it the v0.3 card.
    const init = { headers: { ...options.headers, accept: "application/json", "A2A-Version": A2A_VERSION }, signal: options.signal };
    res = await fetchFollowingRedirects(options.fetch ?? fetch, cardUrl, init, { peer: `A2A agent '${who}'` });
  } catch (e) {
    if (options.signal?.aborted || AgentdError.isInstance(e)) throw e;
    throw new AgentdError(
      "E_UPSTREAM",
      `A2A agent '${who}': cannot read its agent card at ${cardUrl}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  if (!res.ok)
    throw new AgentdError(
      "E_UPSTREAM",
      `A2A agent '${who}': its agent card at ${cardUrl} answered HTTP ${res.status}${res.status === 401 || res.status === 403 ? " (check the agent's headers / token)" : ""}`,
    );
  const limit = Math.min(options.maxResponseBytes ?? BODY_LIMITS.a2aCard, BODY_LIMITS.a2aCard);
  const text = await readBoundedText(res, { limit, peer: `A2A agent '${who}': its agent card at`, url: cardUrl });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AgentdError("E_UPSTREAM", `A2A agent '${who}': ${cardUrl} is not a JSON agent card`);
  }
  const card = v.safeParse(AgentCardSchema, body);
  if (!card.success) throw new AgentdError("E_UPSTREAM", `A2A agent '${who}': ${cardUrl} is not an agent card (${card.issues[0].message})`);
  return card.output;
}

/** A connected client of one remote agent. */
export class A2aClient {
  private constructor(
    /** The agent card read at connect time. */
    readonly card: AgentCard,
    /** The interface in use. */
    readonly via: ChosenInterface,
    private readonly binding: A2aBinding,
    private readonly name: string,
  ) {}

  /** Read the card and pick an interface. Rejects with one `E_UPSTREAM` line when the agent cannot be used. */
  static async connect(url: string, options: A2aClientOptions = {}): Promise<A2aClient> {
    const card = await fetchAgentCard(url, options);
    const name = options.name ?? card.name;
    const chosen = chooseInterface(card, options.preferBinding);
    if (typeof chosen === "string") throw new AgentdError("E_UPSTREAM", `A2A agent '${name}' at ${url}: ${chosen}`);
    const binding = createBinding(chosen, {
      agent: name,
      headers: options.headers,
      fetch: options.fetch,
      maxResponseBytes: options.maxResponseBytes,
    });
    return new A2aClient(card, chosen, binding, name);
  }

  /** Whether the agent declares streaming (`capabilities.streaming`). */
  get streaming(): boolean {
    return this.card.capabilities?.streaming === true;
  }

  /** SendMessage: blocks (unless `configuration.returnImmediately`) until the task ends or is interrupted. */
  async sendMessage(request: SendMessageRequest, signal?: AbortSignal): Promise<SendMessageResponse> {
    return this.check(
      "SendMessage",
      SendMessageResponseSchema,
      await this.binding.call("SendMessage", { ...request }, signal),
    ) as SendMessageResponse;
  }

  /** SendStreamingMessage: the task (or message) first, then its status and artifact updates, until it ends. */
  async *sendStreamingMessage(request: SendMessageRequest, signal?: AbortSignal): AsyncGenerator<StreamResponse> {
    for await (const event of this.binding.stream("SendStreamingMessage", { ...request }, signal))
      yield this.check("SendStreamingMessage", StreamResponseSchema, event) as StreamResponse;
  }

  /**
   * SubscribeToTask: re-attach to a task's stream (after a dropped connection): the task as it stands, then
   * its updates until it ends. A task that already ended is the agent's UnsupportedOperation error.
   */
  async *subscribeToTask(id: string, signal?: AbortSignal): AsyncGenerator<StreamResponse> {
    for await (const event of this.binding.stream("SubscribeToTask", { id }, signal))
      yield this.check("SubscribeToTask", StreamResponseSchema, event) as StreamResponse;
  }

  /** GetTask: the task's current state (with up to `historyLength` messages of history). */
  async getTask(id: string, options: { historyLength?: number; signal?: AbortSignal } = {}): Promise<Task> {
    const params = { id, historyLength: options.historyLength };
    return this.check("GetTask", TaskSchema, await this.binding.call("GetTask", params, options.signal));
  }

  /** CancelTask: ask the agent to stop the task; resolves with the task as the agent reports it. */
  async cancelTask(id: string, options: { metadata?: Record<string, unknown>; signal?: AbortSignal } = {}): Promise<Task> {
    const params = { id, metadata: options.metadata };
    return this.check("CancelTask", TaskSchema, await this.binding.call("CancelTask", params, options.signal));
  }

  private check<S extends v.GenericSchema>(method: string, schema: S, value: unknown): v.InferOutput<S> {
    const r = v.safeParse(schema, value);
    if (r.success) return r.output;
    throw new AgentdError(
      "E_UPSTREAM",
      `A2A agent '${this.name}' (${method}): the reply is not an A2A 1.0 result (${r.issues[0].message}${r.issues[0].path ? ` at ${r.issues[0].path.map((p) => String(p.key)).join(".")}` : ""})`,
    );
  }
}
