/**
 * Who `agentd run` asks when a tool call needs a person's approval (docs/approvals.md). In a terminal
 * (stdin and stderr both TTYs) the question is asked there (ask-approval.ts, @clack/prompts loaded only
 * when the first question comes), with the live status line stepped aside. Anywhere else nobody can
 * answer: the call is denied, with one line on stderr naming the tool, the rule and how to answer it
 * elsewhere, and the model is told it was denied.
 */
import type { AgentRunOptions, ApprovalRequest } from "@agentd/sdk";

type AskApproval = NonNullable<AgentRunOptions["askApproval"]>;

/** The one stderr line of a call denied because nobody could be asked. */
export function unansweredLine(request: ApprovalRequest): string {
  return (
    `agentd: ${request.name} needs a person's approval (${request.rule.label}) and there is no terminal to ask: denied. ` +
    "Run agentd run in a terminal to answer it, decide in code with createAgent({ approvals: { onAsk } }), or allow it in approvals.rules.\n"
  );
}

/** What the channel needs of the terminal around it. */
export interface ApprovalTerminal {
  /** Whether a person can answer here (stdin and stderr are terminals). */
  interactive: boolean;
  /** Write a line to stderr (above the status line when there is one). */
  writeLine: (line: string) => void;
  /** Step the status line aside while asking; call the result to bring it back. */
  hold?: () => () => void;
}

/** The run's approval channel for `agentd run`. */
export function cliApprovalChannel(terminal: ApprovalTerminal): AskApproval {
  if (!terminal.interactive)
    return async (request) => {
      terminal.writeLine(unansweredLine(request));
      return { decision: "deny", by: "agentd run", reason: "nobody could be asked: agentd run is not in a terminal" };
    };
  return async (request, signal) => {
    const { askInTerminal } = await import("./ask-approval.ts");
    const release = terminal.hold?.();
    try {
      return await askInTerminal(request, signal);
    } finally {
      release?.();
    }
  };
}
