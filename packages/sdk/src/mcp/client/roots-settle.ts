/**
 * Wait, after connecting, until a server that takes its working directories from our roots has applied
 * them — so a request sent at once (`agentd mcp fs call read_text_file …`) is not refused as "outside
 * allowed directories".
 *
 * Why it is needed: `@modelcontextprotocol/server-filesystem` started without directory arguments (as
 * Claude Code and VS Code run it) asks `roots/list` from its `oninitialized` hook, which the SDK fires
 * without awaiting; after our answer it resolves each root (`fs.realpath`, then `fs.stat`, on a libuv
 * thread pool that is created on that first use) and only then replaces its allowed directories. Its tool
 * handlers check the list as it is when the request arrives, and nothing on the wire says the roots were
 * applied (only a stderr line). A ping after our answer is therefore not enough — the server answers a
 * ping from a microtask while its file-system calls are still out (measured: 10 of 20 one-shot calls
 * still failed with answer + ping + tools/list before the call).
 *
 * So two steps, neither a fixed delay:
 * 1. Did the server ask at start-up? A server that wants roots asks from its `notifications/initialized`
 *    handler, and a peer handles messages in order, so its `roots/list` reaches us before the answer to a
 *    ping sent after `initialized`. One ping round trip decides it; a server that did not ask is done.
 * 2. Its roots-derived state: where the server reports it through a tool of its own (a table below; today
 *    server-filesystem's `list_allowed_directories`), poll that tool until it lists one of our roots, with
 *    a short backoff and a bound (then the caller goes on; the server's own answer says what is wrong).
 *    A server without such a tool has had our answer once step 1 is over, which is all the protocol shows.
 */
import { nodeUrl } from "../../_internal/node-builtins.ts";
import type { Logger } from "../../log.ts";
import { McpError } from "../../wire/errors.ts";
import type { Root, Tool } from "../../wire/index.ts";

/** What `settleRoots` needs of a client (an `McpClient`). */
export interface RootsSettleClient {
  ping(options?: { signal?: AbortSignal }): Promise<void>;
  listTools(options?: { signal?: AbortSignal }): Promise<Tool[]>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<{ content?: unknown[]; isError?: boolean }>;
}

/** A server-side tool that reports the directories a server derived from our roots. */
interface RootsStateProbe {
  tool: string;
  /** The directories the tool's text lists. */
  directories: (text: string) => string[];
}

/** Tools that report roots-derived state (looked up by name among what the server offers). */
const PROBES: readonly RootsStateProbe[] = [
  // server-filesystem: "Allowed directories:\n/a\n/b"
  {
    tool: "list_allowed_directories",
    directories: (text) =>
      text
        .split("\n")
        .slice(1)
        .map((l) => l.trim())
        .filter(Boolean),
  },
];

/** How `settleRoots` ended: the server did not ask, was answered (nothing more to observe), applied them, or did not confirm in time. */
export type RootsSettlement = "not-asked" | "answered" | "applied" | "unconfirmed";

/** Options of {@link settleRoots}. */
export interface RootsSettleOptions {
  roots: readonly Root[];
  /** Whether the server has asked `roots/list` on this connection (the client's `rootsListed` event). */
  asked: () => boolean;
  signal?: AbortSignal;
  /** The bound on step 2 (ms, default 3 s). */
  timeoutMs?: number;
  logger?: Logger;
}

const textOf = (content: unknown[] | undefined): string =>
  (content ?? [])
    .map((c) =>
      c && typeof c === "object" && (c as { type?: unknown }).type === "text" ? String((c as { text?: unknown }).text ?? "") : "",
    )
    .join("\n");

const rootPath = (uri: string): string | undefined => {
  try {
    return nodeUrl().fileURLToPath(uri).replace(/\/+$/, "");
  } catch {
    return undefined;
  }
};

/** Whether a listed directory is one of ours (the server may report the real path: `/private/tmp/x` for `/tmp/x`). */
const isOurs = (listed: string, ours: readonly string[]): boolean =>
  ours.some((p) => listed === p || listed.endsWith(p) || p.endsWith(listed.replace(/\/+$/, "")));

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

/** Record whether the server asks `roots/list` on `client`'s connection; call before `connect`. */
export function watchRootsRequests(client: { on(event: "rootsListed", listener: () => void): unknown }): () => boolean {
  let asked = false;
  client.on("rootsListed", () => {
    asked = true;
  });
  return () => asked;
}

/**
 * {@link settleRoots} when roots are declared (else nothing), as a best effort: a server that refuses a
 * step (no ping, a failing probe) is used as it is. A lost connection still rejects.
 */
export async function settleDeclaredRoots(
  client: RootsSettleClient,
  roots: readonly Root[] | false | undefined,
  asked: () => boolean,
  logger: Logger,
  signal?: AbortSignal,
): Promise<RootsSettlement | undefined> {
  if (!roots || roots.length === 0) return undefined;
  const settled = await settleRoots(client, { roots, asked, logger, signal }).catch((e: unknown) => {
    if (McpError.isInstance(e)) return "unconfirmed" as const;
    throw e;
  });
  logger.debug("mcp.roots_settled", { settled });
  return settled;
}

/** Wait until the server has applied our roots, as far as it can be seen (see the module comment). */
export async function settleRoots(client: RootsSettleClient, options: RootsSettleOptions): Promise<RootsSettlement> {
  const { signal } = options;
  await client.ping({ signal });
  if (!options.asked()) return "not-asked";
  const offered = new Set((await client.listTools({ signal })).map((t) => t.name));
  const probe = PROBES.find((p) => offered.has(p.tool));
  const ours = options.roots.map((r) => rootPath(r.uri)).filter((p): p is string => p !== undefined);
  if (!probe || ours.length === 0) return "answered";
  const deadline = Date.now() + (options.timeoutMs ?? 3_000);
  for (let wait = 5; !signal?.aborted; wait = Math.min(wait * 2, 200)) {
    const result = await client.callTool(probe.tool, {}, { signal });
    const listed = result.isError ? [] : probe.directories(textOf(result.content));
    if (listed.some((d) => isOurs(d, ours))) return "applied";
    if (Date.now() >= deadline) break;
    await pause(Math.min(wait, Math.max(0, deadline - Date.now())), signal);
  }
  options.logger?.debug("mcp.roots_unconfirmed", { probe: probe.tool });
  return "unconfirmed";
}
