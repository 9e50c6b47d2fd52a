/**
 * The one place on the tool-call path where a call may wait for a person: after the call is known to be a
 * listed, in-scope tool with valid arguments, and before anything reaches the tool. The policy says
 * allow, deny or ask; for ask the gate builds an {@link ApprovalRequest}, hands it to the run's channel
 * and waits for the {@link ApprovalDecision}. A denied call is never made: the model reads a tool error naming the
 * denial and its reason. Both ends are run events (`approval-requested`, `approval-decided`), so telemetry
 * records `approval.requested` and `approval.decided` with who decided, when, what and why.
 *
 * One question at a time per run: calls of one turn that all need a decision are asked in the model's
 * order, and a later call of a tool the person allowed for the rest of the run meanwhile is not asked.
 * "Always" covers that tool (server and name) in this run and nothing else. A decision that carries a
 * digest answers only the call whose arguments have it. The wait counts against the run's deadline.
 *
 * A run that suspends (`RunApprovals.suspend`, native tool calling) does not wait here: the question is
 * recorded and the call comes back {@link PendingCall pending}; the loop stops the run as waiting once the
 * turn's other calls are done. Resumed, the run's calls meet their decisions here (`decided`), bound to the
 * digest of the arguments as saved, and nobody is asked again.
 */
import { setLongTimeout } from "../../_internal/timer.ts";
import type { Emit } from "../events.ts";
import { maskArguments } from "../events.ts";
import { raceAbort } from "../run-signal.ts";
import type { ToolDescriptor } from "../tools.ts";
import { argumentsDigest, compileApprovalPolicy, type ApprovalPolicy } from "./approval-policy.ts";
import type { ApprovalRequest, ApprovalDecision, MatchedRule, RunApprovals } from "./approval-types.ts";

/** One call at the gate. */
export interface GateCall {
  toolCallId: string;
  turn: number;
  /** The name the model used. */
  name: string;
  /** The listed tool it resolves to. */
  tool: ToolDescriptor;
  args: Record<string, unknown>;
}

/** A call that was not made because the run suspends: the question recorded for it. */
export interface PendingCall {
  pending: ApprovalRequest;
}

/** What the gate says of a call: make it (undefined), refuse it (what the model reads), or it waits (the run suspends). */
export type GateVerdict = string | undefined | PendingCall;

/** Whether a run needs a gate at all: no rule and no tool that asks for approval → today's path, untouched. */
export const needsGate = (approvals: RunApprovals | undefined, tools: readonly ToolDescriptor[]): boolean =>
  (approvals?.rules?.length ?? 0) > 0 || tools.some((t) => t.needsApproval !== undefined && t.needsApproval !== false);

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** `server/tool` → its parts; a name without a slash is a tool of the agent's own. */
const partsOf = (name: string): { server?: string; tool: string } => {
  const i = name.indexOf("/");
  return i > 0 ? { server: name.slice(0, i), tool: name.slice(i + 1) } : { tool: name };
};

/** The approval gate of one run. */
export class ApprovalGate {
  private readonly policy: ApprovalPolicy;
  /** Tools the person allowed for the rest of this run. */
  private readonly always: Set<string>;
  private turnstile: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly options: RunApprovals,
    private readonly runId: string,
    private readonly emit: Emit,
    private readonly signal: AbortSignal,
  ) {
    this.policy = compileApprovalPolicy(options.rules);
    this.always = new Set(options.always);
  }

  /** The tools allowed for the rest of this run so far (saved with a suspended run). */
  get allowedForRun(): string[] {
    return [...this.always];
  }

  /**
   * Undefined: make the call. A string: it is refused, and this is what the model reads. `{ pending }`: the
   * run suspends and this call waits for its decision. Rejects only when the run is aborted.
   */
  async check(call: GateCall): Promise<GateVerdict> {
    const name = call.tool.name;
    const policyCall = { name, annotations: call.tool.annotations };
    const ruled = this.policy.match(policyCall);
    if (ruled?.action === "deny")
      return `the call to "${name}" is denied by ${ruled.rule?.label}${ruled.rule?.rule?.message ? `: ${ruled.rule.rule.message}` : ""}. It was not made; do not call it again.`;
    const verdict = ruled?.action === "ask" ? ruled : this.policy.decide(policyCall, await this.toolAsks(call));
    if (verdict.action !== "ask" || !verdict.rule) return undefined;
    if (this.always.has(name)) return undefined;
    const rule = verdict.rule;
    const given = this.options.decided?.get(call.toolCallId);
    if (given) return this.settle(call, rule, given.request, given.decision, Date.now() - Date.parse(given.request.requestedAt));
    if (this.options.suspend) {
      const request = this.request(call, rule);
      await raceAbort(this.options.suspend(request), this.signal);
      return { pending: request };
    }
    // One question at a time: the turnstile passes when the previous question of this run is answered.
    const previous = this.turnstile;
    let release!: () => void;
    this.turnstile = new Promise<void>((r) => {
      release = r;
    });
    try {
      await previous;
      if (this.always.has(name)) return undefined;
      return await this.ask(call, rule);
    } finally {
      release();
    }
  }

  /** The tool's own demand; one that throws is taken as a demand (asking is the safe side). */
  private async toolAsks(call: GateCall): Promise<boolean> {
    const own = call.tool.needsApproval;
    if (own === undefined || typeof own === "boolean") return own === true;
    try {
      return (await own(call.args, { runId: this.runId, toolCallId: call.toolCallId })) === true;
    } catch {
      return true;
    }
  }

  private async ask(call: GateCall, rule: MatchedRule): Promise<string | undefined> {
    const request = this.request(call, rule);
    const started = performance.now();
    const decision = await this.decide(request);
    return this.settle(call, rule, request, decision, performance.now() - started);
  }

  /** The question for a call, announced (`approval-requested`). */
  private request(call: GateCall, rule: MatchedRule): ApprovalRequest {
    const name = call.tool.name;
    const request: ApprovalRequest = {
      id: `apr-${crypto.randomUUID()}`,
      runId: this.runId,
      toolCallId: call.toolCallId,
      name,
      ...partsOf(name),
      arguments: maskArguments(call.args) as Record<string, unknown>,
      digest: argumentsDigest(call.args),
      rule,
      annotations: call.tool.annotations,
      requestedAt: new Date().toISOString(),
    };
    const at = { runId: this.runId, turn: call.turn, toolCallId: call.toolCallId, name: call.name, qualifiedName: name };
    this.emit({
      type: "approval-requested",
      ...at,
      requestId: request.id,
      server: request.server,
      tool: request.tool,
      rule: rule.label,
      digest: request.digest,
      arguments: request.arguments,
    });
    return request;
  }

  /**
   * Apply a decision to its call (`approval-decided`): undefined to make it, or the denial the model reads.
   * A decision for other arguments than the call's — its own digest, or a call whose arguments are no
   * longer the ones asked about — is a denial.
   */
  private settle(
    call: GateCall,
    rule: MatchedRule,
    request: ApprovalRequest,
    decision: ApprovalDecision,
    waitedMs: number,
  ): string | undefined {
    const name = call.tool.name;
    const at = { runId: this.runId, turn: call.turn, toolCallId: call.toolCallId, name: call.name, qualifiedName: name };
    const bound = (decision.digest === undefined || decision.digest === request.digest) && argumentsDigest(call.args) === request.digest;
    const final: ApprovalDecision & { by: string } = bound
      ? { ...decision, by: decision.by ?? "unknown" }
      : { decision: "deny", by: decision.by ?? "unknown", reason: "the decision was given for other arguments than this call's" };
    this.emit({
      type: "approval-decided",
      ...at,
      requestId: request.id,
      decision: final.decision,
      by: final.by,
      reason: final.reason,
      waitedMs: Math.max(0, Math.round(waitedMs)),
    });
    if (final.decision === "always") this.always.add(name);
    if (final.decision !== "deny") return undefined;
    return `the call to "${name}" was denied (${rule.label}; decided by ${final.by})${final.reason ? `: ${final.reason}` : ""}. It was not made.`;
  }

  /** The channel's decision, the timeout's, or — without a channel — a denial saying nobody could be asked. */
  private async decide(request: ApprovalRequest): Promise<ApprovalDecision> {
    const { channel, timeoutMs, onTimeout = "deny", unansweredHint } = this.options;
    if (!channel)
      return {
        decision: "deny",
        by: "nobody",
        reason: `it needs a person's approval and none could be asked${unansweredHint ? ` (${unansweredHint})` : ""}`,
      };
    const timeout = new AbortController();
    const signal = AbortSignal.any([this.signal, timeout.signal]);
    let cancelTimer: (() => void) | undefined;
    const expired = new Promise<ApprovalDecision>((resolve) => {
      if (timeoutMs === undefined) return;
      cancelTimer = setLongTimeout(() => {
        timeout.abort(new Error("approval timeout"));
        resolve({ decision: onTimeout, by: "timeout", reason: `no decision within ${timeoutMs} ms` });
      }, timeoutMs);
    });
    try {
      const answered = Promise.resolve()
        .then(() => channel.ask(request, signal))
        .then(
          (d) => checkDecision(d),
          (e): ApprovalDecision => ({ decision: "deny", by: "channel", reason: `the approval channel failed: ${errorText(e)}` }),
        );
      return await raceAbort(Promise.race([answered, expired]), this.signal);
    } finally {
      cancelTimer?.();
      // Tell a channel still asking that the question is over (its answer is no longer wanted).
      if (!timeout.signal.aborted) timeout.abort(new Error("decided"));
    }
  }
}

/** A decision as the channel gave it, or a denial when it is not one. */
function checkDecision(d: unknown): ApprovalDecision {
  const kind = (d as ApprovalDecision | undefined)?.decision;
  if (kind === "approve" || kind === "deny" || kind === "always") return d as ApprovalDecision;
  return { decision: "deny", by: "channel", reason: `the approval channel answered ${JSON.stringify(d)}, not a decision` };
}
