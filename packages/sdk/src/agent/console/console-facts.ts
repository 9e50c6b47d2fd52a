/**
 * What the console reads from the agent besides the run registry: lifecycle, readiness, the MCP servers,
 * the A2A peers, the subagents. The agent (create-agent.ts) provides it; every field is read when a page
 * asks, so the console shows the agent as it is now, and a richer record shows up without a change here.
 */
import type { ConsoleConversations } from "./console-conversation.ts";

/** One MCP server as the Servers page shows it. */
export interface ConsoleServer {
  name: string;
  /** `stdio` or `http`. */
  transport: string;
  /** idle, connecting, connected, reconnecting, failed, closed. */
  state: string;
  /** The negotiated protocol revision of the latest connection. */
  revision?: string;
  /** The capability names the server declared. */
  capabilities: string[];
  serverInfo?: { name: string; version: string };
  reconnects?: number;
  lastError?: string;
}

/** The agent as the console reads it. */
export interface ConsoleFacts {
  /** The agent's version (shown on the Overview). */
  version?: string;
  /** The lifecycle status (`state`, `inFlight`, `triggers`, `serving`, `sampling`…): shown as it comes. */
  lifecycle(): Record<string, unknown>;
  /** Readiness, as /readyz answers it. */
  ready(): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** The configured triggers' status records (the operator's and the local user's to see). */
  triggers?(): unknown[];
  /** Each MCP server. */
  servers?(): ConsoleServer[];
  /** The remote A2A agents the model may delegate to. */
  a2aPeers?(): { name: string; url: string }[];
  /** Listen to changes the run registry does not report (the triggers' table); returns the unsubscribe function. */
  onChange?(listener: () => void): () => void;
  /** The subagent handles (each owned by the run that spawned it). */
  subagents?(): unknown[];
  /** The configured model prices (`model.prices`; read at each look, a reload may change them): the Overview's spend says what it can count. */
  prices?(): unknown;
  /** The agent's conversations, read as their owner reads them: a run's page shows the one it continued. */
  conversations?: ConsoleConversations;
}
