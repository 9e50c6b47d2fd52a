/**
 * The shapes a person in the loop is asked and answers with — the one interface every approval channel
 * speaks, whatever carries the question: code (`createAgent({ approvals: { onAsk } })`), a terminal
 * (`agentd run` in a TTY), and the channels of a waiting run that is saved and resumed elsewhere (an
 * operator's console, A2A `input-required`, `agent://approvals`, `agentd approvals`).
 *
 * - An {@link ApprovalRule} says which calls need a decision: matched in order over the qualified tool name
 *   (`server/tool` globs) and the MCP tool annotations the server declares; the first that matches decides.
 * - An {@link ApprovalRequest} is one call that waits: which tool of which server, its arguments with
 *   credentials masked, the SHA-256 digest of the arguments in canonical JSON, the rule that matched.
 * - A {@link ApprovalDecision} answers it: approve, deny (with a reason the model reads), or always (this tool,
 *   for the rest of this run only — nothing broader). A decision that names a digest is bound to it: it
 *   answers only the call whose arguments have that digest, so it cannot be replayed against another call.
 * - An {@link ApprovalChannel} turns a request into a decision. It may take as long as the person does;
 *   `signal` aborts when the run ends or the wait times out, and the channel should then stop asking.
 */

/** The MCP tool annotations a rule may match (2025-11-25 `ToolAnnotations`): hints from the server, not guarantees. */
export interface ToolHints {
  /** The tool does not modify its environment (spec default false). */
  readOnlyHint?: boolean;
  /** The tool may perform destructive updates (spec default true; meaningful when not read-only). */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments has no further effect (spec default false). */
  idempotentHint?: boolean;
  /** The tool reaches an open world of external entities (spec default true). */
  openWorldHint?: boolean;
}

/** What a rule decides for the calls it matches. */
export type ApprovalAction = "ask" | "allow" | "deny";

/**
 * One approval rule. Every condition given must hold (a rule with none matches every call); the first
 * rule that matches decides. Annotations are compared with the MCP defaults filled in, so
 * `{ annotations: { readOnlyHint: true }, decision: "allow" }` before `{ decision: "ask" }` asks for every
 * tool that does not declare itself read-only (the safe direction: a server that declares nothing is asked).
 */
export interface ApprovalRule {
  /** Globs over the qualified tool name (`server/tool`; a local tool's own name): `*` any run of characters, `?` one. */
  tool?: string | readonly string[];
  /** Annotation values the tool must have (as declared by its server, MCP defaults for those it leaves out). */
  annotations?: ToolHints;
  decision: ApprovalAction;
  /** With `deny`: what the model is told. With `ask`: shown to the person asked. */
  message?: string;
  /**
   * With `ask`, on served runs: who may decide besides operators — `operator` (default: operators only) or
   * `owner` (the run's own principal, the caller that started it, may decide its own run's question too).
   */
  decidedBy?: "operator" | "owner";
}

/** The rule that asked for a decision: its place in the list, or the tool's own `needsApproval`. */
export interface MatchedRule {
  /** `rules[N]` (its index in the rules) or `tool` (the tool's own `needsApproval`). */
  source: "rules" | "tool";
  index?: number;
  /** The rule as written (absent for a tool's own `needsApproval`). */
  rule?: ApprovalRule;
  /** One line naming the rule, for a person: `approvals.rules[1] (tool "fs/delete_*")`. */
  label: string;
}

/** One tool call that waits for a decision. */
export interface ApprovalRequest {
  /** Unique per request (`apr-…`). */
  id: string;
  runId: string;
  toolCallId: string;
  /** The qualified tool name (`server/tool`, or a local tool's own name). */
  name: string;
  /** The MCP server, for a server's tool. */
  server?: string;
  /** The tool's name on its server (or the local tool's name). */
  tool: string;
  /** The arguments, credential-like keys and values masked. */
  arguments: Record<string, unknown>;
  /** SHA-256 (hex) of the arguments in canonical JSON (object keys sorted, no whitespace). */
  digest: string;
  rule: MatchedRule;
  /** The annotations the server declared for the tool, as it declared them. */
  annotations?: ToolHints;
  /** ISO 8601. */
  requestedAt: string;
}

/** A person's (or a program's) answer to an {@link ApprovalRequest}. */
export type ApprovalDecision =
  | { decision: "approve"; by?: string; reason?: string; digest?: string }
  | { decision: "deny"; by?: string; reason?: string; digest?: string }
  /** Approve this call and every later call of the same tool in this run (not other tools, not other runs). */
  | { decision: "always"; by?: string; reason?: string; digest?: string };

/** Where a request goes and its decision comes from. */
export interface ApprovalChannel {
  /** Resolve the decision; `signal` aborts when the run ends or the wait timed out. */
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

/** A local tool's own demand for approval: always, or per call from its arguments. */
export type NeedsApproval =
  | boolean
  | ((args: Record<string, unknown>, context: { runId: string; toolCallId: string }) => boolean | Promise<boolean>);

/** What a run's tool calls are checked against (the agent builds it from `approvals` and the run's channel). */
export interface RunApprovals {
  rules?: readonly ApprovalRule[];
  /** Who is asked; without one, a call that needs a decision is denied (nobody could give it). */
  channel?: ApprovalChannel;
  /** How long one question waits (default: as long as the run may). */
  timeoutMs?: number;
  /** The decision when `timeoutMs` passes (default deny). */
  onTimeout?: "deny" | "approve";
  /** Added to the model's and the log's refusal when no channel was there: where a person could answer. */
  unansweredHint?: string;
  /**
   * Suspend instead of waiting (native tool calling only): a call that needs a decision is not asked and
   * waited for; its question is recorded here (an approval desk's `post`, or nothing more than the saved
   * run for a plain SDK run), the turn's other calls still run, and the run stops waiting — holding no model
   * request and no tool call open — to be resumed with the decisions (`agent.resume`). Wins over `channel`
   * in native tool calling; in JSON-action mode the channel is asked in memory as before.
   */
  suspend?: (request: ApprovalRequest) => Promise<void>;
  /** A resumed run's decisions, by tool call id: the question as asked and its answer (applied without asking again). */
  decided?: ReadonlyMap<string, { request: ApprovalRequest; decision: ApprovalDecision }>;
  /** Tools an earlier part of this run allowed for the rest of it ("always"). */
  always?: readonly string[];
}
