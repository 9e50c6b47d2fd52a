/**
 * An agent served over HTTP on 127.0.0.1 with A2A on, driven by a scripted model, and the official
 * `@a2a-js/sdk` client pointed at it. `gate()` makes the model's next answer wait until released, so a
 * test can act on a task that is still working. Its conversations (each A2A context is one) are kept in a
 * temp directory removed on close, never in the user's state directory.
 */
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, type Client } from "@a2a-js/sdk/client";
import { reply, scriptedModel, type Step } from "../../loop/__fixtures__/scripted-model.ts";
import { createAgent, type Agent, type AgentOptions } from "../create-agent.ts";
import type { ServeOptions } from "../serving/served-agent.ts";
import type { LanguageModel } from "../../model/language-model.ts";
import type { Logger } from "../../log.ts";
import type { A2aServeOptions } from "../../a2a/server/index.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DocumentConversationStore } from "../conversations/document-conversations.ts";
import { LocalDocuments } from "../conversations/local-documents.ts";

/** A served agent and how to reach it. */
export interface ServedAgent {
  agent: Agent;
  base: string;
  /** The MCP endpoint on the same listener. */
  mcp: URL;
  model: ReturnType<typeof scriptedModel>;
  close(): Promise<void>;
}

/** Serve an agent whose model answers with `steps` (default: echo the last user text, forever). */
export async function serveA2aAgent(
  o: {
    steps?: Step[];
    http?: Partial<Extract<ServeOptions, { http: unknown }>["http"]>;
    operators?: string[];
    logger?: Logger;
    a2a?: A2aServeOptions;
    agent?: Partial<AgentOptions>;
  } = {},
): Promise<ServedAgent> {
  const steps = o.steps ?? Array.from({ length: 200 }, () => echo);
  const model = scriptedModel(steps);
  const state = mkdtempSync(join(tmpdir(), "agentd-a2a-conversations-"));
  const local = new LocalDocuments(state);
  const agent = createAgent({
    conversations: { store: new DocumentConversationStore(async () => local) },
    ...o.agent,
    model: model as LanguageModel,
    serve: { ...o.agent?.serve, operators: o.operators ?? o.agent?.serve?.operators },
    ...(o.logger ? { logger: o.logger } : {}),
  });
  const serving = await agent.serve({
    http: { hostname: "127.0.0.1", port: 0, ...o.http },
    a2a: { card: { name: "test-agent", description: "an agent under test" }, ...o.a2a },
  });
  const base = serving.url!.origin;
  const close = async () => {
    await agent.close();
    rmSync(state, { recursive: true, force: true });
  };
  return { agent, base, mcp: serving.url!, model, close };
}

/** A step that answers "echo: " and the last user text. */
export const echo: Step = (request) => {
  const last = [...request.messages].reverse().find((m) => m.role === "user");
  const text = last?.role === "user" ? last.content : "";
  return reply(`echo: ${text.split("Now: ").pop()}`);
};

/** A step held until `release()`; `entered` resolves when the model is waiting in it. */
export function gate(then: Step = echo): { step: Step; entered: Promise<void>; release(): void } {
  let release!: () => void;
  let entered!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const enteredP = new Promise<void>((r) => (entered = r));
  return {
    entered: enteredP,
    release,
    step: async (request, index) => {
      entered();
      await Promise.race([
        released,
        new Promise((_, reject) => request.signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true })),
      ]);
      return typeof then === "function" ? then(request, index) : then;
    },
  };
}

/** The official client, over the binding named (it reads the agent card first). */
export async function officialClient(base: string, binding: "JSONRPC" | "HTTP+JSON" = "JSONRPC", token?: string): Promise<Client> {
  const fetchImpl: typeof fetch = token
    ? (((input, init) =>
        fetch(input, {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${token}` },
        })) as typeof fetch)
    : fetch;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: [binding],
    }),
  );
  return factory.createFromUrl(base);
}
