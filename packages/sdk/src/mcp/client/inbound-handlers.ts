/**
 * What a client answers and listens to from its server: the server→client requests the capability map
 * answers (roots, sampling, elicitation — or nothing, so the protocol says -32601), and the notifications
 * that invalidate the client's caches and become its events. Statelessly, change notifications count only
 * when they belong to the active `subscriptions/listen` (stdio shares one channel between listens).
 */
import type { LoggingLevel, Root } from "../../wire/index.ts";
import { CLIENT_IGNORED_NOTIFICATIONS, CLIENT_INBOUND, isOn, type CapabilityConfig } from "../capabilities.ts";
import type { Emitter } from "../protocol/emitter.ts";
import type { Protocol } from "../protocol/protocol.ts";
import type { McpClientEvents } from "./client-options.ts";
import type { ResultCache } from "./result-cache.ts";
import type { ListenManager } from "./subscriptions-listen.ts";
import type { ToolCatalog } from "./tool-catalog.ts";

/** The client's parts the handlers reach; `roots` and `listens` are read when a message arrives. */
export interface InboundTargets {
  config: CapabilityConfig;
  events: Emitter<McpClientEvents>;
  cache: ResultCache;
  tools: ToolCatalog;
  roots(): Root[];
  listens(): ListenManager | undefined;
}

type Params = Record<string, unknown>;

/** Install the server→client request and notification handlers on `protocol`. */
export function installInboundHandlers(protocol: Protocol, t: InboundTargets): void {
  installRequestHandlers(protocol, t);
  const on = (method: string, fn: (params: Params) => void) => {
    const item = Object.hasOwn(CLIENT_IGNORED_NOTIFICATIONS, method) ? CLIENT_IGNORED_NOTIFICATIONS[method] : undefined;
    if (item && !isOn(t.config, item)) return;
    protocol.setNotificationHandler(method, fn);
  };
  // Statelessly, change notifications count only on the active listen (stdio shares one channel).
  const listened = (fn: (params: Params) => void) => (p: Params) => {
    const listens = t.listens();
    if (listens === undefined || listens.accepts(p)) fn(p);
  };
  on("notifications/subscriptions/acknowledged", (p) => t.listens()?.acknowledged(p));
  on(
    "notifications/resources/updated",
    listened((p) => {
      t.cache.invalidate("resources/read", p.uri as string);
      t.events.emit("resourceUpdated", { uri: p.uri as string });
    }),
  );
  on(
    "notifications/resources/list_changed",
    listened(() => {
      t.cache.invalidate("resources/list");
      t.cache.invalidate("resources/templates/list");
      t.events.emit("resourcesListChanged");
    }),
  );
  on(
    "notifications/tools/list_changed",
    listened(() => {
      t.cache.invalidate("tools/list");
      t.tools.invalidate();
      t.events.emit("toolsListChanged");
    }),
  );
  on(
    "notifications/prompts/list_changed",
    listened(() => {
      t.cache.invalidate("prompts/list");
      t.events.emit("promptsListChanged");
    }),
  );
  on("notifications/message", (p) =>
    t.events.emit("log", { level: p.level as LoggingLevel, logger: p.logger as string | undefined, data: p.data }),
  );
}

/** The server→client requests, each answered as the capability map decides (unanswered ones get -32601). */
function installRequestHandlers(protocol: Protocol, t: InboundTargets): void {
  for (const [method, decide] of Object.entries(CLIENT_INBOUND)) {
    const d = decide(t.config);
    if (d.kind === "answer")
      protocol.setRequestHandler(method, () => {
        if (method === "roots/list") t.events.emit("rootsListed");
        return d.result(t.roots());
      });
    else if (d.kind === "service") protocol.setRequestHandler(method, d.handler);
  }
}
