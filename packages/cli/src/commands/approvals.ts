/**
 * `agentd approvals list | approve ID | deny ID`: the questions a running `agentd serve` keeps at its
 * approval desk (tool calls of served and triggered runs waiting for a person), listed and decided over MCP
 * (`agent://approvals`, the `agent.decide` tool) with the same connection flags as `agentd status`. What the
 * server refuses — no such question, already decided, not the caller's to decide — is one line, exit 2.
 */
import { AgentdError, McpError } from "@agentd/sdk";
import type { PendingApproval } from "@agentd/sdk/loop";
import type { McpClient } from "@agentd/sdk/mcp";
import { scrubSecrets } from "@agentd/sdk/telemetry";
import { defineCommand } from "citty";
import { EXIT } from "../exit-codes.ts";
import { connectServer, serverConnectionArgs } from "../status/read-status.ts";

export const approvalsExamples = [
  "agentd approvals list --url http://127.0.0.1:7777        # pending questions, oldest first, then the last hour's decisions",
  "agentd approvals list --json | jq '.[].request.id'",
  "agentd approvals approve apr-3f1c… --reason 'expected cleanup'",
  "agentd approvals approve apr-3f1c… --always             # this tool, for the rest of that run",
  "agentd approvals deny apr-3f1c… --reason 'not on a Sunday'   # the model reads the reason",
  "AGENTD_URL=https://agentd.example/mcp AGENTD_TOKEN=… agentd approvals list",
];

const ACTIONS = ["list", "approve", "deny"] as const;

export const approvalsCommand = defineCommand({
  meta: { name: "approvals", description: "List and decide the tool calls a running agentd serve holds for approval (over MCP)." },
  args: {
    action: { type: "positional", required: false, description: "list (default), approve ID or deny ID" },
    id: { type: "positional", required: false, description: "The question's id (apr-…, from agentd approvals list)" },
    ...serverConnectionArgs,
    json: { type: "boolean", description: "Print JSON (list: an array of questions; approve/deny: the question as recorded)" },
    always: { type: "boolean", description: "approve: also every later call of the same tool in that run" },
    reason: { type: "string", description: "Why: recorded with the decision (a denial's reason is what the model reads)" },
  },
  async run({ args }) {
    const action = (args.action ?? "list") as (typeof ACTIONS)[number];
    if (!ACTIONS.includes(action))
      throw new AgentdError("E_USAGE", `unknown action '${args.action}': use agentd approvals list, approve ID or deny ID`);
    if (action !== "list" && !args.id)
      throw new AgentdError("E_USAGE", `agentd approvals ${action} needs the question's id (agentd approvals list shows them)`);
    if (args.always && action !== "approve") throw new AgentdError("E_USAGE", "--always goes with approve only");
    const { client, url } = await connectServer(args, "agentd approvals");
    const out = (s: string) => process.stdout.write(scrubSecrets(s));
    try {
      if (action === "list") {
        const approvals = await list(client, url);
        out(args.json ? `${JSON.stringify(approvals)}\n` : renderApprovals(approvals));
        return EXIT.ok;
      }
      const decision = action === "deny" ? "deny" : args.always ? "always" : "approve";
      const recorded = await decide(client, url, {
        approvalId: String(args.id),
        decision,
        ...(args.reason ? { reason: args.reason } : {}),
      });
      out(
        args.json
          ? `${JSON.stringify(recorded)}\n`
          : `${recorded.request.id}: ${recorded.decision?.decision} by ${recorded.decision?.by}\n`,
      );
      return EXIT.ok;
    } finally {
      await client.close().catch(() => {});
    }
  },
});

/** The server has no desk (its config has no `approvals`): one line saying so. */
const noDesk = (url: URL) =>
  new AgentdError("E_USAGE", `agentd at ${url.href} keeps no approval desk: its config has no approvals rules (docs/approvals.md)`);

async function list(client: McpClient, url: URL): Promise<PendingApproval[]> {
  try {
    const text = (await client.readResource("agent://approvals")).contents[0]?.text as string;
    return (JSON.parse(text) as { approvals: PendingApproval[] }).approvals;
  } catch (e) {
    if (McpError.isInstance(e)) throw noDesk(url);
    throw e;
  }
}

async function decide(client: McpClient, url: URL, args: Record<string, unknown>): Promise<PendingApproval> {
  let r: Awaited<ReturnType<McpClient["callTool"]>>;
  try {
    r = await client.callTool("agent.decide", args);
  } catch (e) {
    if (McpError.isInstance(e)) throw noDesk(url);
    throw e;
  }
  const text = (r.content?.find((c) => c.type === "text") as { text?: string } | undefined)?.text ?? "no message";
  // Every refusal (no such id, already decided, not yours to decide, a bad digest) is the user's to fix: exit 2.
  if (r.isError) throw new AgentdError("E_USAGE", text);
  return (r.structuredContent as { approval: PendingApproval }).approval;
}

/** One line a question: id, state, the call and its arguments, whose run, and the decision or the deadline. */
export function renderApprovals(approvals: PendingApproval[]): string {
  if (approvals.length === 0) return "no questions waiting for approval\n";
  const lines = approvals.map((a) => {
    const r = a.request;
    const who = `run ${r.runId}${a.principal ? ` of ${a.principal}` : ""} (${a.origin})`;
    const call = `${r.name} ${JSON.stringify(r.arguments)}`;
    if (a.state === "pending") return `${r.id}  pending  ${call}  ${who}  ${r.rule.label}${a.expiresAt ? `  expires ${a.expiresAt}` : ""}`;
    const d = a.decision;
    return `${r.id}  ${d?.decision} by ${d?.by} at ${d?.at}${d?.reason ? ` (${d.reason})` : ""}  ${call}  ${who}`;
  });
  return `${lines.join("\n")}\n`;
}
