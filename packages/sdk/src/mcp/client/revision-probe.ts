/**
 * Which era a server speaks, decided once per connection (versioning spec, "Backward Compatibility"): a
 * dual-era client probes with `server/discover` carrying its preferred stateless revision in `_meta`.
 * - a `DiscoverResult` naming a revision we speak statelessly: the server is modern, use it;
 * - `UnsupportedProtocolVersionError` (-32022): modern, but not our revision — never fall back to
 *   `initialize` then; we speak one stateless revision, so that is an error naming both lists;
 * - anything else (another error, a transport refusal, silence until the probe timeout): a handshake
 *   server; fall back to `initialize`. The fallback is never keyed to one error code (stdio spec).
 */
import { AgentdError, McpError } from "../../wire/errors.ts";
import { ErrorCode } from "../../wire/jsonrpc.ts";
import {
  isStatelessRevision,
  isSupportedRevision,
  LATEST_STATELESS_REVISION,
  LATEST_REVISION,
  HANDSHAKE_REVISIONS,
  STATELESS_REVISIONS,
  type StatelessRevision,
  type ProtocolRevision,
} from "../../wire/codec.ts";
import { STATELESS_META } from "../../wire/schemas/stateless-meta.ts";
import type { DiscoverResult } from "../../wire/types/methods-2026-07-28.generated.ts";
import type { ClientCapabilities, Implementation, InitializeResult, LoggingLevel, ServerCapabilities } from "../../wire/index.ts";
import type { Transport } from "../../transport/types.ts";
import type { Protocol } from "../protocol/protocol.ts";
import { clientCapabilities, type CapabilityConfig } from "../capabilities.ts";
import { TASKS_EXTENSION } from "../../wire/schemas/tasks-extension-id.ts";

/**
 * How a client picks the revision of a server: `"auto"` probes with `server/discover`, `"initialize"` uses the
 * `initialize` handshake only. `"legacy"` is the older spelling of `"initialize"`, still accepted.
 */
export type VersionNegotiation = "auto" | "initialize" | "legacy";

/** The verdict of a probe. */
export type ProbeVerdict = { kind: "stateless"; revision: StatelessRevision; discover: DiscoverResult } | { kind: "handshake" };

/** The `_meta` every stateless request carries: version, capabilities, identity, and the log level if set. */
export function statelessEnvelope(
  revision: StatelessRevision,
  capabilities: ClientCapabilities,
  clientInfo: Implementation,
  logLevel?: LoggingLevel,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [STATELESS_META.protocolVersion]: revision,
    [STATELESS_META.clientCapabilities]: capabilities,
    [STATELESS_META.clientInfo]: clientInfo,
  };
  if (logLevel !== undefined) meta[STATELESS_META.logLevel] = logLevel;
  return meta;
}

/** Probe options. */
export interface ProbeOptions {
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  /** How long silence means "a handshake server" (stdio spec: "does not respond within a reasonable timeout"). */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Probe the server on `protocol` (started, nothing sent yet). Leaves the protocol at the verdict's revision. */
export async function probeRevision(protocol: Protocol, transport: Transport, options: ProbeOptions): Promise<ProbeVerdict> {
  const revision = LATEST_STATELESS_REVISION;
  protocol.setRevision(revision);
  transport.setProtocolVersion?.(revision);
  try {
    const discover = await protocol.request<DiscoverResult>(
      "server/discover",
      { _meta: statelessEnvelope(revision, options.capabilities, options.clientInfo) },
      { timeoutMs: options.timeoutMs, signal: options.signal },
    );
    const offered = discover.supportedVersions.find((v): v is StatelessRevision => isStatelessRevision(v));
    if (offered !== undefined) {
      protocol.setRevision(offered);
      transport.setProtocolVersion?.(offered);
      return { kind: "stateless", revision: offered, discover };
    }
  } catch (e) {
    if (options.signal?.aborted) throw e;
    if (McpError.isInstance(e) && e.code === ErrorCode.UnsupportedProtocolVersion) {
      const supported = (e.data as { supported?: unknown } | undefined)?.supported;
      throw new AgentdError(
        "E_PROTOCOL_VERSION",
        `the server speaks MCP ${Array.isArray(supported) ? supported.join(", ") : "(unlisted)"} per request; this client speaks ${STATELESS_REVISIONS.join(", ")} that way, and a stateless server has no initialize to fall back to`,
      );
    }
    // A closed connection is not a verdict: the caller sees it as such.
    if (AgentdError.isInstance(e) && e.code === "E_CONNECTION_CLOSED") throw e;
  }
  protocol.setRevision(LATEST_REVISION);
  return { kind: "handshake" };
}

/**
 * What to do when `initialize` failed with `error`: undefined when it is not an
 * `UnsupportedProtocolVersionError` (-32022; the failure stands), else the revision to connect with, the
 * first of the server's `data.supported` that this client speaks (a server that speaks only 2026-07-28
 * refuses `initialize` this way). Throws, naming both lists, when there is none in common.
 */
export function revisionAfterRefusal(error: unknown): ProtocolRevision | undefined {
  if (!McpError.isInstance(error) || error.code !== ErrorCode.UnsupportedProtocolVersion) return undefined;
  const listed = (error.data as { supported?: unknown } | undefined)?.supported;
  const supported = Array.isArray(listed) ? listed.filter((v): v is string => typeof v === "string") : [];
  const common = supported.find(isSupportedRevision);
  if (common !== undefined) return common;
  throw new AgentdError(
    "E_PROTOCOL_VERSION",
    `the server refused initialize and speaks MCP ${supported.length ? supported.join(", ") : "(no revision listed)"}; this client speaks ${HANDSHAKE_REVISIONS.join(", ")} with initialize and ${STATELESS_REVISIONS.join(", ")} per request: no revision in common`,
  );
}

/** What a client keeps of a `DiscoverResult`: the same shape an `initialize` result gives it. */
export function discoveredInit(
  revision: StatelessRevision,
  discover: DiscoverResult,
): InitializeResult & { protocolVersion: StatelessRevision } {
  const serverInfo = (discover._meta?.[STATELESS_META.serverInfo] ?? { name: "unknown", version: "" }) as Implementation;
  const init: InitializeResult & { protocolVersion: StatelessRevision } = {
    protocolVersion: revision,
    capabilities: discover.capabilities,
    serverInfo,
  };
  if (discover.instructions !== undefined) init.instructions = discover.instructions;
  return init;
}

/** The list changes a stateless client listens for: those the server declared (prompts only when the client uses them). */
export function listChangeFilter(caps: ServerCapabilities, prompts: boolean): Record<string, boolean> {
  const lists: Record<string, boolean> = {};
  if (caps.tools?.listChanged) lists.toolsListChanged = true;
  if (caps.resources?.listChanged) lists.resourcesListChanged = true;
  if (caps.prompts?.listChanged && prompts) lists.promptsListChanged = true;
  return lists;
}

/** What every stateless request declares: the handshake capabilities, plus the tasks extension when tasks are on. */
export function statelessCapabilities(config: CapabilityConfig): ClientCapabilities {
  const caps = clientCapabilities(config);
  return config.tasks ? { ...caps, extensions: { [TASKS_EXTENSION]: {} } } : caps;
}
