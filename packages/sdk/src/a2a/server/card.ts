/**
 * The agent card (`/.well-known/agent-card.json`): who the agent is, where its two bindings are, what it
 * can do, and how to authenticate — derived from how it is served, so the card never promises a scheme
 * the endpoint does not check. The public card and the authenticated extended card differ only in
 * `skills`: the extended one also lists the operator's skills when the caller is an operator.
 */
import { A2A_VERSION, type AgentCard, type AgentSkill, type SecurityScheme } from "../shared/types.ts";

/** The version the card's v0.3 interfaces declare. */
const V03_INTERFACE_VERSION = "0.3";

/** What the card says about the agent. */
export interface A2aCardOptions {
  name?: string;
  description?: string;
  version?: string;
  /** Skills besides "run" (e.g. one per configured prompt or instruction template). */
  skills?: AgentSkill[];
}

/** How the endpoint is served (for the interfaces and the security schemes). */
export interface A2aServedAs {
  /** The JSON-RPC endpoint URL; the HTTP+JSON binding is `${jsonRpcUrl}/rest`. */
  jsonRpcUrl: string;
  bearer: boolean;
  mtls: boolean;
}

/** The skill every agentd has: run an instruction through its loop. */
export const RUN_SKILL: AgentSkill = {
  id: "run",
  name: "Run an instruction",
  description:
    "Runs the message's text through agentd's agentic loop (its model and MCP tools) and answers with the result as an artifact.",
  tags: ["agentd", "run"],
  examples: ["Summarise the open issues in the tracker"],
  inputModes: ["text/plain", "application/json"],
  outputModes: ["text/plain", "application/json"],
};

/** Build the card. */
export function buildAgentCard(o: A2aCardOptions, served: A2aServedAs, extraSkills: AgentSkill[] = []): AgentCard {
  const securitySchemes: Record<string, SecurityScheme> = {};
  if (served.bearer)
    securitySchemes.bearer = { httpAuthSecurityScheme: { scheme: "Bearer", description: "A bearer token configured on the agent" } };
  if (served.mtls) securitySchemes.mtls = { mtlsSecurityScheme: { description: "A client certificate signed by the agent's CA" } };
  // Both configured means both are checked on every request: one requirement naming the two.
  const names = Object.keys(securitySchemes);
  return {
    name: o.name ?? "agentd",
    description:
      o.description ?? "A headless agent runtime: send it an instruction, it plans with its model and acts through its MCP tools.",
    supportedInterfaces: [
      { url: served.jsonRpcUrl, protocolBinding: "JSONRPC", protocolVersion: A2A_VERSION },
      { url: `${served.jsonRpcUrl}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: A2A_VERSION },
      // The same endpoint answers v0.3 requests (no `A2A-Version` header) in v0.3 shapes; 1.0 entries come first.
      { url: served.jsonRpcUrl, protocolBinding: "JSONRPC", protocolVersion: V03_INTERFACE_VERSION },
      { url: `${served.jsonRpcUrl}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: V03_INTERFACE_VERSION },
    ],
    version: o.version ?? "0.1.0",
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    ...(names.length ? { securitySchemes, securityRequirements: [{ schemes: Object.fromEntries(names.map((n) => [n, {}])) }] } : {}),
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [RUN_SKILL, ...(o.skills ?? []), ...extraSkills],
  };
}
