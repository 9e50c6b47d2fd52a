/**
 * An agent's MCP connections, with what each server's client declares: the agent's capability switches,
 * sampling answered by the agent's model (one handler per server for the agent's life, so its budget
 * window survives reconnects), and the `operator` elicitation policy routing a server's elicitation to
 * whoever answers for the run of its oldest call in flight.
 */
import type { Logger } from "../../log.ts";
import type { CapabilityConfig } from "../../mcp/capabilities.ts";
import type { AgentCapabilities, AgentOptions } from "../types/agent-options.ts";
import { type Connections, createConnections } from "./connect-all.ts";
import type { InFlightRuns } from "./in-flight-runs.ts";
import { operatorRouting } from "./open-tool-calls.ts";
import { samplingHandler } from "../sampling/sampling-handler.ts";
import { SamplingLedger } from "../sampling/sampling-ledger.ts";

/** The connections, and the sampling ledger and operator routing the tool set and the runs share with them. */
export interface AgentConnections {
  connections: Connections;
  /** Sampling answered per server (absent when sampling is off or there is no model). */
  ledger: SamplingLedger | undefined;
  /** The `operator` elicitation policy's calls in flight (absent unless it is on). */
  operator: ReturnType<typeof operatorRouting> | undefined;
}

/** See the module header. */
export function agentConnections(options: AgentOptions, runs: InFlightRuns, logger: Logger): AgentConnections {
  const capabilities = clientCapabilities(options.capabilities);
  const sampling = options.capabilities?.sampling;
  const ledger = sampling && options.model ? new SamplingLedger() : undefined;
  const samplingCaps = new Map<string, CapabilityConfig | undefined>();
  const samplingFor = (server: string): CapabilityConfig | undefined => {
    if (samplingCaps.has(server)) return samplingCaps.get(server);
    const policy = sampling?.servers?.[server] ?? sampling?.all;
    const caps =
      !policy || !ledger || !options.model
        ? undefined
        : {
            ...capabilities,
            sampling: {
              handler: samplingHandler({
                server,
                model: options.model,
                policy,
                ledger,
                prices: options.prices,
                logger,
              }),
              tools: policy.tools === true,
            },
          };
    samplingCaps.set(server, caps);
    return caps;
  };
  const operator = options.capabilities?.elicitation === "operator" ? operatorRouting(logger, runs) : undefined;
  const capabilitiesFor = (server: string): CapabilityConfig | undefined =>
    operator ? operator.capabilities(server, samplingFor(server) ?? capabilities) : samplingFor(server);
  const { durability } = options;
  const connections = createConnections({
    mcpServers: options.mcpServers,
    capabilities,
    capabilitiesFor: ledger || operator ? capabilitiesFor : undefined,
    reconnect: options.reconnect,
    httpReactivity: options.capabilities?.httpReactivity === true,
    // 0 is no bound of the agent's own: the client's default applies.
    requestTimeoutMs: options.limits?.mcpTimeoutMs || undefined,
    maxTotalTimeoutMs: options.limits?.mcpMaxTotalTimeoutMs || undefined,
    // Remote tasks started by runs are noted in the checkpoint, so a restart re-attaches instead of calling again.
    taskJournal: options.triggers?.specs.length ? durability?.checkpoint?.tasks : undefined,
    tokenStore: durability?.oauthTokens,
    logger,
  });
  return { connections, ledger, operator };
}

/** The MCP clients' switches: the agent's own (sampling policy, HTTP reactivity, notifications, the operator policy) taken out. */
function clientCapabilities(c: AgentCapabilities | undefined): CapabilityConfig | undefined {
  if (!c) return undefined;
  const { sampling: _sampling, httpReactivity: _http, serverNotifications: _notifications, elicitation, ...rest } = c;
  return elicitation === undefined || elicitation === "operator" ? rest : { ...rest, elicitation };
}
