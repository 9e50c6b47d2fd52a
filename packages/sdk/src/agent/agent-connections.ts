/**
 * An agent's MCP connections, with what each server's client declares: the agent's capability switches,
 * sampling answered by the agent's model (one handler per server for the agent's life, so its budget
 * window survives reconnects), and the `operator` elicitation policy routing a server's elicitation to
 * whoever answers for the run of its oldest call in flight.
 */
import type { Logger } from "../log.ts";
import type { CapabilityConfig } from "../mcp/capabilities.ts";
import type { AgentOptions } from "./agent-options.ts";
import { type Connections, createConnections } from "./connect-all.ts";
import { operatorRouting } from "./open-tool-calls.ts";
import { samplingHandler } from "./sampling/sampling-handler.ts";
import { SamplingLedger } from "./sampling/sampling-ledger.ts";

/** The connections, and the sampling ledger and operator routing the tool set and the runs share with them. */
export interface AgentConnections {
  connections: Connections;
  /** Sampling answered per server (absent when sampling is off or there is no model). */
  ledger: SamplingLedger | undefined;
  /** The `operator` elicitation policy's calls in flight and askers (absent unless it is on). */
  operator: ReturnType<typeof operatorRouting> | undefined;
}

/** See the module header. */
export function agentConnections(options: AgentOptions, logger: Logger): AgentConnections {
  const ledger = options.sampling && options.model ? new SamplingLedger() : undefined;
  const samplingCaps = new Map<string, CapabilityConfig | undefined>();
  const samplingFor = (server: string): CapabilityConfig | undefined => {
    if (samplingCaps.has(server)) return samplingCaps.get(server);
    const policy = options.sampling?.servers?.[server] ?? options.sampling?.all;
    const caps =
      !policy || !ledger || !options.model
        ? undefined
        : {
            ...options.capabilities,
            sampling: {
              handler: samplingHandler({
                server,
                model: options.model,
                policy,
                ledger,
                ...(options.prices ? { prices: options.prices } : {}),
                logger,
              }),
              tools: policy.tools === true,
            },
          };
    samplingCaps.set(server, caps);
    return caps;
  };
  const operator = options.operatorElicitation ? operatorRouting(logger) : undefined;
  const capabilitiesFor = (server: string): CapabilityConfig | undefined =>
    operator ? operator.capabilities(server, samplingFor(server) ?? options.capabilities) : samplingFor(server);
  const connections = createConnections({
    ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
    ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    ...(ledger || operator ? { capabilitiesFor } : {}),
    ...(options.reconnect ? { reconnect: options.reconnect } : {}),
    ...(options.httpReactivity === true ? { httpReactivity: true } : {}),
    ...(options.mcpTimeouts?.timeoutMs ? { requestTimeoutMs: options.mcpTimeouts.timeoutMs } : {}),
    ...(options.mcpTimeouts?.maxTotalTimeoutMs ? { maxTotalTimeoutMs: options.mcpTimeouts.maxTotalTimeoutMs } : {}),
    // Remote tasks started by runs are noted in the checkpoint, so a restart re-attaches instead of calling again.
    ...(options.checkpoint && options.triggers?.specs.length ? { taskJournal: options.checkpoint.tasks } : {}),
    ...(options.oauthTokenStore ? { tokenStore: options.oauthTokenStore } : {}),
    logger,
  });
  return { connections, ledger, operator };
}
