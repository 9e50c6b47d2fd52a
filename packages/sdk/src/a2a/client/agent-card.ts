/**
 * The A2A agent card, as far as the client reads it: who the agent is, its skills, whether it streams,
 * and `supportedInterfaces` — the (url, binding, version) triples it can be reached through.
 */
import * as v from "valibot";

/** One way to reach the agent. Bindings of A2A v1.0: `JSONRPC`, `HTTP+JSON`, `GRPC`. */
export const AgentInterfaceSchema = v.looseObject({
  url: v.string(),
  protocolBinding: v.string(),
  protocolVersion: v.optional(v.string()),
  tenant: v.optional(v.string()),
});
/** A supported interface. */
export type AgentInterface = v.InferOutput<typeof AgentInterfaceSchema>;

/** A skill the agent advertises (descriptive: A2A routes no message to a skill). */
export const AgentSkillSchema = v.looseObject({
  id: v.string(),
  name: v.string(),
  description: v.optional(v.string()),
  tags: v.optional(v.array(v.string())),
  examples: v.optional(v.array(v.string())),
});
/** An advertised skill. */
export type AgentSkill = v.InferOutput<typeof AgentSkillSchema>;

/** The fields of an agent card the client uses; others are kept but not read. */
export const AgentCardSchema = v.looseObject({
  name: v.string(),
  description: v.optional(v.string()),
  version: v.optional(v.string()),
  supportedInterfaces: v.optional(v.array(AgentInterfaceSchema)),
  capabilities: v.optional(v.looseObject({ streaming: v.optional(v.boolean()), pushNotifications: v.optional(v.boolean()) })),
  skills: v.optional(v.array(AgentSkillSchema)),
  /** v0.3 cards name their one URL, its transport and the version at the top level, the others beside. */
  url: v.optional(v.string()),
  protocolVersion: v.optional(v.string()),
  preferredTransport: v.optional(v.string()),
  additionalInterfaces: v.optional(v.array(v.looseObject({ url: v.string(), transport: v.string() }))),
});
/** An agent card. */
export type AgentCard = v.InferOutput<typeof AgentCardSchema>;

/** The bindings this client speaks, in order of preference. */
export type ClientBinding = "JSONRPC" | "HTTP+JSON";
const SPOKEN: readonly ClientBinding[] = ["JSONRPC", "HTTP+JSON"];

/** The interface the client will use. */
export interface ChosenInterface {
  binding: ClientBinding;
  url: string;
  tenant?: string;
  /** "0.3" when the agent offers only A2A 0.3 (spoken over JSON-RPC); absent for 1.x. */
  version?: "0.3";
}

const isV03 = (version: string | undefined) => /^0\.3(\.|$)/.test(version ?? "");

/** The JSON-RPC URL of a v0.3 agent: a 0.3 `supportedInterfaces` entry, or a v0.3-shaped card's `url` / `additionalInterfaces`. */
function v03JsonRpcUrl(card: AgentCard): string | undefined {
  const listed = (card.supportedInterfaces ?? []).find((i) => isV03(i.protocolVersion) && i.protocolBinding.toUpperCase() === "JSONRPC");
  if (listed) return listed.url;
  if (card.supportedInterfaces?.length || !isV03(card.protocolVersion)) return undefined;
  if (card.url && (card.preferredTransport ?? "JSONRPC").toUpperCase() === "JSONRPC") return card.url;
  return card.additionalInterfaces?.find((i) => i.transport.toUpperCase() === "JSONRPC")?.url;
}

/**
 * Pick the interface to talk through: a 1.x `JSONRPC` one if offered, else a 1.x `HTTP+JSON` one (or the
 * one `prefer` names), else — for an agent offering only A2A 0.3 — its 0.3 `JSONRPC` one. Returns a sentence
 * saying why not when the card offers none of those (e.g. only gRPC).
 */
export function chooseInterface(card: AgentCard, prefer?: ClientBinding): ChosenInterface | string {
  const all = card.supportedInterfaces ?? [];
  const v1 = all.filter(
    (i) => /^1(\.|$)/.test(i.protocolVersion ?? "") && (SPOKEN as readonly string[]).includes(i.protocolBinding.toUpperCase()),
  );
  const order = prefer ? [prefer, ...SPOKEN.filter((b) => b !== prefer)] : SPOKEN;
  for (const binding of order) {
    const hit = v1.find((i) => i.protocolBinding.toUpperCase() === binding);
    if (hit) return { binding, url: hit.url, tenant: hit.tenant };
  }
  // No 1.x interface: an A2A 0.3 agent is spoken to in 0.3 over JSON-RPC.
  const legacy = all.some((i) => /^1(\.|$)/.test(i.protocolVersion ?? "")) ? undefined : v03JsonRpcUrl(card);
  if (legacy) return { binding: "JSONRPC", url: legacy, version: "0.3" };
  const versions = [...new Set([...all.map((i) => i.protocolVersion ?? "?"), ...(card.protocolVersion ? [card.protocolVersion] : [])])];
  if (all.length === 0 || !all.some((i) => /^1(\.|$)/.test(i.protocolVersion ?? "")))
    return `it speaks A2A ${versions.join(", ") || "0.3"} without a JSON-RPC interface, and agentd's A2A client speaks 1.0, or 0.3 over JSON-RPC only: offer one of those on the agent`;
  return `it offers no JSONRPC or HTTP+JSON interface for A2A 1.0 (only ${all.map((i) => i.protocolBinding).join(", ")})`;
}
