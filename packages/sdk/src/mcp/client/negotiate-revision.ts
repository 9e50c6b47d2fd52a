/**
 * Which era a new connection speaks, decided before anything else is sent: with `versionNegotiation:
 * "auto"` a `server/discover` probe first (2026-07-28 statelessly when the server offers it); otherwise
 * `initialize` at once — and a server that refuses it while listing only stateless revisions is probed
 * then, so the default costs nothing for servers that accept `initialize`. A handshake server's chosen
 * version must be one this client speaks.
 */
import type { Transport } from "../../transport/types.ts";
import { AgentdError } from "../../wire/errors.ts";
import { HANDSHAKE_REVISIONS, isHandshakeRevision, LATEST_REVISION, type ProtocolRevision } from "../../wire/codec.ts";
import type { ClientCapabilities, Implementation, InitializeResult } from "../../wire/index.ts";
import type { Protocol } from "../protocol/protocol.ts";
import type { RequestOptions } from "../protocol/types.ts";
import { type ProbeVerdict, probeRevision, revisionAfterRefusal, type VersionNegotiation } from "./revision-probe.ts";

/** What the client says about itself when it connects. */
export interface ClientHello {
  clientInfo: Implementation;
  /** Declared in `initialize`. */
  capabilities: ClientCapabilities;
  /** Declared in every stateless request (the handshake's, plus the tasks extension when tasks are on). */
  statelessCapabilities: ClientCapabilities;
  versionNegotiation: VersionNegotiation | undefined;
  probeTimeoutMs: number;
}

/** The era the connection speaks: stateless with the server's discover result, or the handshake's result. */
export type NegotiatedRevision =
  | Extract<ProbeVerdict, { kind: "stateless" }>
  | { kind: "handshake"; result: InitializeResult & { protocolVersion: ProtocolRevision } };

/** Find the revision to speak over a started `protocol`. */
export async function negotiateRevision(
  protocol: Protocol,
  transport: Transport,
  hello: ClientHello,
  options: RequestOptions,
): Promise<NegotiatedRevision> {
  const probe = () =>
    probeRevision(protocol, transport, {
      capabilities: hello.statelessCapabilities,
      clientInfo: hello.clientInfo,
      timeoutMs: hello.probeTimeoutMs,
      signal: options.signal,
    });
  if (hello.versionNegotiation === "auto") {
    const verdict = await probe();
    if (verdict.kind === "stateless") return verdict;
  }
  const initialize = (protocolVersion: string) =>
    protocol.request<InitializeResult>(
      "initialize",
      { protocolVersion, capabilities: hello.capabilities, clientInfo: hello.clientInfo },
      options,
    );
  let result: InitializeResult;
  try {
    result = await initialize(LATEST_REVISION);
  } catch (e) {
    // A server that speaks only stateless revisions refuses initialize and lists them: that refusal is
    // the probe, so the default costs nothing for servers that accept initialize.
    const revision = revisionAfterRefusal(e);
    if (revision === undefined) throw e;
    if (isHandshakeRevision(revision)) result = await initialize(revision);
    else {
      const verdict = await probe();
      if (verdict.kind === "stateless") return verdict;
      throw e;
    }
  }
  if (!isHandshakeRevision(result.protocolVersion))
    throw new AgentdError(
      "E_PROTOCOL_VERSION",
      `server ${result.serverInfo?.name ?? ""} chose protocol version "${result.protocolVersion}"; this client speaks ${HANDSHAKE_REVISIONS.join(", ")} with initialize`,
    );
  return { kind: "handshake", result: result as InitializeResult & { protocolVersion: ProtocolRevision } };
}
