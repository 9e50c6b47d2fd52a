/**
 * Picks the socket layer: `Bun.serve` under Bun, `node:http` / `node:https` elsewhere, or the one asked for.
 * Nothing outside the server's entry imports an adapter directly.
 */
import { AgentdError } from "../../../wire/errors.ts";
import { listenBun, NEEDS_BUN } from "./bun.ts";
import type { AdapterHandler, HttpAdapterName, HttpListener, ListenOptions } from "./types.ts";

export type { AdapterConn, AdapterHandler, HttpAdapterName, HttpListener, ListenOptions } from "./types.ts";

/** The adapter of this runtime: `bun` under Bun, `node` elsewhere. */
export const runtimeAdapter = (): HttpAdapterName => ("Bun" in globalThis ? "bun" : "node");

/**
 * Whether `adapter` reads the verified client certificate from the TLS socket itself. Node's does; Bun's
 * `node:https` and `Bun.serve` do not show it, so under Bun mutual TLS goes through a node:tls front.
 */
export const readsClientCerts = (adapter: HttpAdapterName): boolean => adapter === "node" && !("Bun" in globalThis);

/** Bind with `adapter` (default: the runtime's). Throws `E_USAGE` for `bun` outside Bun. */
export function listen(adapter: HttpAdapterName | undefined, o: ListenOptions, handle: AdapterHandler): Promise<HttpListener> {
  const chosen = adapter ?? runtimeAdapter();
  if (chosen === "bun") {
    if (!("Bun" in globalThis)) return Promise.reject(new AgentdError("E_USAGE", NEEDS_BUN));
    return Promise.resolve(listenBun(o, handle));
  }
  // Loaded only when used: `node:http` and `node:https` cost ~4 MB of memory under Bun, which serves with
  // `Bun.serve` unless told otherwise.
  return import("./node.ts").then(({ listenNode }) => listenNode(o, handle));
}

/** The idle timeout (seconds) to pair with a keep-alive interval: comfortably above it, within Bun's range. */
export const idleTimeoutFor = (keepAliveMs: number) => Math.min(255, Math.max(10, Math.ceil(keepAliveMs / 1000) * 2 + 5));
