/**
 * agentd's A2A v1.0 client: agent card discovery, the JSON-RPC and HTTP+JSON bindings, the v1.0 shapes
 * (and A2A 0.3 over JSON-RPC for agents that offer nothing newer).
 * The agent turns configured `a2aAgents` into tools through it (`agent/a2a-tool-set.ts`).
 */
export { A2aClient, AGENT_CARD_PATH, agentCardUrl, fetchAgentCard, type A2aClientOptions } from "./client.ts";
export {
  chooseInterface,
  type AgentCard,
  type AgentInterface,
  type AgentSkill,
  type ChosenInterface,
  type ClientBinding,
} from "./agent-card.ts";
export { A2A_VERSION } from "./bindings.ts";
export {
  INTERRUPTED_STATES,
  TERMINAL_STATES,
  type Artifact,
  type Message,
  type Part,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskState,
  type TaskStatus,
  type TaskArtifactUpdateEvent,
  type TaskStatusUpdateEvent,
} from "./wire-types.ts";
