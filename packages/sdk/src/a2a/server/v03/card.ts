/**
 * The agent card in its v0.3 shape, derived from the v1.0 card so the two never disagree: v0.3 names one
 * `url` with its `preferredTransport` (and the others in `additionalInterfaces`), carries the protocol
 * version at the top level, and types its security schemes with a `type` field instead of a oneof.
 */
import type { AgentCard, SecurityScheme } from "../../shared/types.ts";

/** The version a v0.3 card declares. */
export const V03_PROTOCOL_VERSION = "0.3.0";

/** Whether an interface's `protocolVersion` is in the v0.3 range. */
export const isV03Version = (v: string): boolean => /^0\.3(\.|$)/.test(v.trim());

function schemeToV03(s: SecurityScheme): Record<string, unknown> {
  if ("httpAuthSecurityScheme" in s) return { type: "http", ...s.httpAuthSecurityScheme };
  return { type: "mutualTLS", ...s.mtlsSecurityScheme };
}

/** The v0.3 card for a v1.0 card that lists v0.3 interfaces (the first one is the card's `url`). */
export function cardToV03(card: AgentCard): Record<string, unknown> {
  const legacy = card.supportedInterfaces.filter((i) => isV03Version(i.protocolVersion));
  const main = legacy[0] ?? card.supportedInterfaces[0]!;
  const schemes = card.securitySchemes ?? {};
  return {
    protocolVersion: V03_PROTOCOL_VERSION,
    name: card.name,
    description: card.description,
    url: main.url,
    preferredTransport: main.protocolBinding,
    additionalInterfaces: legacy.map((i) => ({ url: i.url, transport: i.protocolBinding })),
    version: card.version,
    capabilities: { streaming: card.capabilities.streaming ?? false, pushNotifications: card.capabilities.pushNotifications ?? false },
    ...(Object.keys(schemes).length
      ? {
          securitySchemes: Object.fromEntries(Object.entries(schemes).map(([name, s]) => [name, schemeToV03(s)])),
          security: (card.securityRequirements ?? []).map((r) =>
            Object.fromEntries(Object.entries(r.schemes).map(([name, v]) => [name, v.list ?? []])),
          ),
        }
      : {}),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills,
    supportsAuthenticatedExtendedCard: card.capabilities.extendedAgentCard === true,
  };
}
