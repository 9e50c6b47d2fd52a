/**
 * agentd as an A2A v1.0 server: the agent card, the JSON-RPC and HTTP+JSON bindings, tasks backed by the
 * agent's runs. {@link createA2aEndpoint} gives the mount the HTTP listener serves beside MCP.
 */
import type { ApprovalDesk } from "../../loop/approvals/approval-desk.ts";
import type { Logger } from "../../log.ts";
import type { HttpMount } from "../../transport/http-server/index.ts";
import type { RunRegistry } from "../../serve/run-registry.ts";
import type { ServedRunner } from "../../serve/served-mcp.ts";
import { buildAgentCard, type A2aCardOptions } from "./card.ts";
import { A2A_PATH, createA2aMount } from "./mount.ts";
import { createA2aService } from "./service.ts";
import { A2aTasks, type A2aTaskLimits } from "./tasks.ts";
import { PushConfigs, type A2aPushOptions } from "./push.ts";
import type { A2aRunWaits } from "./task-durable-wait.ts";
import { OPERATOR_SKILLS, type OperatorControl } from "./operator.ts";
import type { Principal } from "../../serve/principal.ts";
import type { ServedRuns } from "../../serve/served-runs.ts";
import type { ServedPrompt } from "../../serve/served-prompts.ts";
import { promptSkills } from "./prompt-skills.ts";
import type { ServedConversations } from "../../serve/served-conversations.ts";

export { A2A_PATH, AGENT_CARD_PATH } from "./mount.ts";
export type { A2aCardOptions } from "./card.ts";
export type { A2aTaskLimits } from "./tasks.ts";
export type { A2aPushOptions } from "./push.ts";
export type { A2aRunWaits, FollowedRun, SavedTaskRun, TaskRecordStore } from "./task-durable-wait.ts";

/** A2A serving options (`agent.serve({ http, a2a })`). */
export interface A2aServeOptions {
  /** What the agent card says (name, description, extra skills). */
  card?: A2aCardOptions;
  /** Bounds of the task store. */
  tasks?: A2aTaskLimits;
  /** Push notification delivery (webhooks: loopback or `allowedHosts` only). */
  push?: A2aPushOptions;
}

/** What the endpoint needs from its host. */
export interface A2aEndpointOptions extends A2aServeOptions {
  runner: ServedRunner;
  registry: RunRegistry;
  operators: ReadonlySet<string>;
  auth: { bearer: boolean; mtls: boolean };
  /** The configured triggers' status, for the operator's `agentd/status`. */
  triggers?: () => unknown;
  /** The agent's controls the operator channel reaches (drain, cancel, triggers, reload). */
  control?: OperatorControl;
  /** Whether any principal is configured as an operator (else the `operator` elicitation policy declines). */
  hasOperators?: boolean;
  /** The served prompts as they are now (a reload may change them): one card skill each, runnable by name. */
  prompts?: () => Readonly<Record<string, ServedPrompt>>;
  /** A message's id runs once across replicas sharing this store (serve/served-runs.ts). */
  servedRuns?: ServedRuns;
  /** The agent's conversations: a `contextId` names one of its sender's, and another principal's is refused. */
  conversations?: ServedConversations;
  /** The agent's approval desk: a task whose run waits for approval is `input-required` until decided. */
  approvals?: ApprovalDesk;
  /** With `approvals`: a task whose run waits for approval waits saved, and is found again after a restart. */
  runWaits?: A2aRunWaits;
  maxBodyBytes: number;
  /** Time a request body may take to arrive (408 past it). Default 10 s. */
  bodyTimeoutMs?: number;
  /** Open SSE streams one principal may hold (429 past it). Default 64. */
  maxStreamsPerPrincipal?: number;
  logger: Logger;
}

/** The A2A endpoint: its mount, and where its URLs point once the listener is bound. */
export interface A2aEndpoint {
  mount: HttpMount;
  /** Set the origin clients reach (e.g. `https://agentd.example.com`), for the card's interface URLs. */
  setOrigin(origin: string): void;
  /** The A2A tasks (the console lists and cancels them through the operator channel). */
  tasks: A2aTasks;
}

/** Build the A2A endpoint. */
export function createA2aEndpoint(o: A2aEndpointOptions): A2aEndpoint {
  const push = new PushConfigs(o.push ?? {}, o.logger);
  const tasks = new A2aTasks(
    o.runner,
    o.registry,
    o.tasks,
    (owner, taskId, event) => push.deliver(owner, taskId, event),
    {
      hasOperators: o.hasOperators === true,
      logger: o.logger,
      prompt: o.prompts && ((name: string) => (Object.hasOwn(o.prompts!(), name) ? o.prompts!()[name] : undefined)),
      approvals: o.approvals,
      runWaits: o.runWaits,
    },
    o.servedRuns,
  );
  let origin = "http://127.0.0.1";
  // The extended card (an authenticated caller's) lists the operator's skills to operators only.
  // Built per request: the prompt skills follow a reload.
  // `reached`: the origin a trusted proxy forwarded for this request (behind an ingress), else the set one.
  const card = (principal?: Principal, reached?: string) =>
    buildAgentCard(
      { ...o.card, skills: [...(o.card?.skills ?? []), ...promptSkills(o.prompts?.() ?? {})] },
      { jsonRpcUrl: `${reached ?? origin}${A2A_PATH}`, ...o.auth },
      principal?.role === "operator" ? OPERATOR_SKILLS : [],
    );
  const service = createA2aService(
    tasks,
    push,
    card,
    { tasks, registry: o.registry, logger: o.logger, triggers: o.triggers, control: o.control },
    o.conversations,
  );
  return {
    mount: createA2aMount({
      service,
      card,
      operators: o.operators,
      maxBodyBytes: o.maxBodyBytes,
      bodyTimeoutMs: o.bodyTimeoutMs ?? 10_000,
      maxStreamsPerPrincipal: o.maxStreamsPerPrincipal ?? 64,
      logger: o.logger,
    }),
    setOrigin: (value) => void (origin = value.replace(/\/+$/, "")),
    tasks,
  };
}
