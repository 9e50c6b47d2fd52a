/**
 * The approval desk on the served MCP surface: `agent://approvals` (the questions the caller may see, as
 * JSON: pending ones oldest first, then those decided in the last hour; subscribe to hear of every question
 * posted or decided) and `agent://approvals/{id}` (one question), the `agent.decide` tool that answers one
 * (operators always; a run's own principal where its rule or `approvals.askCaller` says so) — what
 * `agentd approvals` speaks — and, with `askCaller`, the run's caller asked itself by form elicitation.
 */
import type { ApprovalDesk, ApprovalViewer } from "../../loop/approvals/approval-desk.ts";
import type { ApprovalChannel, ApprovalDecision, ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import type { McpServer } from "../../mcp/server/server.ts";
import type { ServerContext, ServerSession } from "../../mcp/server/session.ts";
import type { CallToolResult } from "../../wire/index.ts";
import { AgentdError, McpError } from "../../wire/errors.ts";
import { ErrorCode } from "../../wire/jsonrpc.ts";
import type { Principal, resolvePrincipal } from "../principal.ts";

/** The desk as the served surface takes it. */
export interface ServedApprovals {
  desk: ApprovalDesk;
  /** Ask a served caller that declared elicitation about its own run's questions (`approvals.askCaller`). */
  askCaller?: boolean;
}

/** The list of questions (read it, or subscribe to it). */
export const APPROVALS_URI = "agent://approvals";

type PrincipalOf = (authInfo: Parameters<typeof resolvePrincipal>[0]) => Principal;

/** The desk's viewer for a served principal. */
export const viewerOf = (p: Principal): ApprovalViewer => ({ principal: p.id, operator: p.role === "operator" });

/** Register the resources and `agent.decide` on `server`, and notify subscribers of every change at the desk. */
export function registerApprovals(server: McpServer, desk: ApprovalDesk, principalOf: PrincipalOf): () => void {
  const json = (uri: string, value: unknown) => ({ contents: [{ uri, mimeType: "application/json", text: JSON.stringify(value) }] });
  server.resource(
    {
      uri: APPROVALS_URI,
      name: "approvals",
      title: "Questions waiting for approval",
      mimeType: "application/json",
      description: "Tool calls waiting for a decision (pending first, oldest first), then those decided in the last hour: { approvals }.",
    },
    async (uri, ctx) => json(uri, { approvals: await desk.list(viewerOf(principalOf(ctx.authInfo))) }),
  );
  server.resourceTemplate(
    {
      uriTemplate: `${APPROVALS_URI}/{id}`,
      name: "approval",
      title: "A question waiting for approval",
      mimeType: "application/json",
      description: "One question: the call, its arguments (secrets masked), the rule, its state and decision.",
    },
    async (uri, vars, ctx) => {
      const id = String(vars.id);
      const found = await desk.get(id, viewerOf(principalOf(ctx.authInfo))).catch(() => undefined);
      if (!found) throw new McpError(ErrorCode.ResourceNotFound, `no approval ${id}`, { uri });
      return json(uri, found);
    },
  );
  server.tool(
    {
      name: "agent.decide",
      title: "Decide a tool call waiting for approval",
      description:
        "Approve, deny, or always approve (this tool, for the rest of its run) a tool call listed in agent://approvals. Returns the question as recorded.",
      inputSchema: {
        type: "object",
        properties: {
          approvalId: { type: "string", description: "The question's id (apr-…)." },
          decision: { type: "string", enum: ["approve", "deny", "always"] },
          reason: { type: "string", description: "Why: recorded with the decision; a denial's reason is what the model reads." },
          digest: { type: "string", description: "The call's argument digest, to bind the decision to exactly that call." },
        },
        required: ["approvalId", "decision"],
      },
      annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args, ctx) => decideTool(desk, viewerOf(principalOf(ctx.authInfo)), args),
  );
  const sessionSees = (principal: string | undefined) => (s: ServerSession) => {
    const p = principalOf(s.protocol.transport.authInfo);
    return p.role === "operator" || (principal !== undefined && p.id === principal);
  };
  return desk.watch((id) => {
    void (async () => {
      const found = id ? await desk.get(id, { operator: true }).catch(() => undefined) : undefined;
      // An unknown id (a change heard from another replica, coalesced): every session that may list hears it.
      const to = found ? sessionSees(found.principal) : () => true;
      await server.notifyResourceUpdated(APPROVALS_URI, to);
      if (found) await server.notifyResourceUpdated(`${APPROVALS_URI}/${id}`, to);
    })().catch(() => {});
  });
}

async function decideTool(desk: ApprovalDesk, viewer: ApprovalViewer, args: Record<string, unknown>): Promise<CallToolResult> {
  const error = (text: string, code: string): CallToolResult => ({
    content: [{ type: "text", text }],
    structuredContent: { code },
    isError: true,
  });
  const id = args.approvalId;
  const kind = args.decision;
  if (typeof id !== "string" || id === "")
    return error("agent.decide needs approvalId: the question's id from agent://approvals", "E_USAGE");
  if (kind !== "approve" && kind !== "deny" && kind !== "always")
    return error('agent.decide needs decision: "approve", "deny" or "always"', "E_USAGE");
  const decision = {
    decision: kind,
    ...(typeof args.reason === "string" && args.reason ? { reason: args.reason } : {}),
    ...(typeof args.digest === "string" && args.digest ? { digest: args.digest } : {}),
  } as ApprovalDecision;
  try {
    const recorded = await desk.decide(id, decision, viewer);
    const text = `approval ${id}: ${recorded.decision?.decision} by ${recorded.decision?.by}`;
    return { content: [{ type: "text", text }], structuredContent: { approval: recorded } };
  } catch (e) {
    if (AgentdError.isInstance(e)) return error(e.message, e.code);
    throw e;
  }
}

/** How a served MCP run's caller is asked about its run's questions (`approvals.askCaller`). */
export interface CallerAsk {
  /** Each question the run posts as it suspends, saved: the caller is asked it beside the desk. */
  askCaller: (request: ApprovalRequest) => void;
  /** A run that cannot suspend (a model without native tool calls): the desk's channel, the caller beside it, in memory. */
  askApproval: ApprovalChannel["ask"];
}

/**
 * How a served MCP run's caller is asked (`askCaller`, and the caller declared elicitation); undefined
 * otherwise — the run posts its questions to the desk and suspends, saved, until they are decided
 * (agent/run/run-waiting.ts). With it the run suspends and is saved all the same, and its caller is asked
 * by form elicitation while it stays connected: its answer is a decision at the desk as the run's own
 * principal (digest bound), which resumes the run (agent/run/desk-resumer.ts); a decision recorded first
 * elsewhere (an operator, another replica) cancels the elicitation.
 */
export function askApprovalOf(
  approvals: ServedApprovals | undefined,
  run: { runId: string; principal: string },
  ctx: Partial<Pick<ServerContext, "session" | "clientCapabilities" | "signal">>,
): CallerAsk | undefined {
  if (!approvals) return undefined;
  const session = ctx.session;
  const canAsk = approvals.askCaller && session && ctx.clientCapabilities?.elicitation !== undefined;
  if (!canAsk) return undefined;
  const { desk } = approvals;
  const elicit = (request: ApprovalRequest, signal: AbortSignal) => elicitDecision(session, request, signal);
  const channel = desk.channelFor({ ...run, origin: "mcp", askCaller: elicit });
  const viewer: ApprovalViewer = { principal: run.principal, operator: false };
  return {
    askCaller: (request) => askBeside(desk, request, viewer, elicit, ctx.signal),
    askApproval: (request, signal) => channel.ask(request, signal),
  };
}

/**
 * Ask the caller about one posted question while the question is pending and the caller's request lasts:
 * its answer is decided at the desk (refused there when another decision came first); a decision recorded
 * first cancels the elicitation. Every change at the desk is re-read, not only one naming this question (a
 * change heard from another replica may be coalesced into another id).
 */
function askBeside(
  desk: ApprovalDesk,
  request: ApprovalRequest,
  viewer: ApprovalViewer,
  elicit: (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision | undefined>,
  callerGone: AbortSignal | undefined,
): void {
  const decided = new AbortController();
  const check = () =>
    void desk
      .get(request.id, viewer)
      .then((q) => q?.state === "decided" && decided.abort(new Error(`approval ${request.id} was decided`)))
      .catch(() => {});
  const off = desk.watch(check);
  check();
  const signal = callerGone ? AbortSignal.any([callerGone, decided.signal]) : decided.signal;
  void elicit(request, signal)
    .then((d) => (d && !signal.aborted ? desk.decide(request.id, d, viewer) : undefined))
    .catch(() => {}) // decided elsewhere first, or the caller could not be asked: the question still waits at the desk
    .finally(off);
}

/** Ask the caller by form elicitation; its decline is a denial, its cancel leaves the question to others. */
async function elicitDecision(
  session: ServerSession,
  request: ApprovalRequest,
  signal: AbortSignal,
): Promise<ApprovalDecision | undefined> {
  const where = request.server ? ` on ${request.server}` : "";
  const r = await session.elicit(
    {
      mode: "form",
      message: `Approve the call to ${request.tool}${where} with ${JSON.stringify(request.arguments)}? (${request.rule.label}; approval ${request.id})`,
      requestedSchema: {
        type: "object",
        properties: {
          decision: { type: "string", title: "Decision", enum: ["approve", "deny"] },
          reason: { type: "string", title: "Reason" },
        },
        required: ["decision"],
      },
    },
    { signal },
  );
  if (r.action === "decline") return { decision: "deny", reason: "declined by the caller", digest: request.digest };
  if (r.action !== "accept") return undefined;
  const kind = r.content?.decision === "approve" ? "approve" : "deny";
  const reason = typeof r.content?.reason === "string" && r.content.reason ? r.content.reason : undefined;
  return { decision: kind, ...(reason ? { reason } : {}), digest: request.digest };
}
