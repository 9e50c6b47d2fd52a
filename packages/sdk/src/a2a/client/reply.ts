/**
 * What the model reads of a remote A2A agent's reply: the task's outcome folded from a blocking reply or a
 * stream of updates (state, the agent's last status message, artifacts with `append` chunks joined, usage
 * where the peer reports it), rendered as text. An `input-required` task says how to answer it through the
 * same tool (taskId and contextId). The loop fences the text as untrusted tool output.
 */
import type { Artifact, Message, Part, StreamResponse, Task } from "./index.ts";
import { INTERRUPTED_STATES, TERMINAL_STATES } from "./index.ts";
import type { Usage } from "../../model/language-model.ts";
import type { ToolCallOutcome } from "../../loop/tools.ts";

/** The reply as it stands (a task being followed, or a direct message). */
export interface A2aReply {
  taskId?: string;
  contextId?: string;
  /** `TASK_STATE_*`, or `message` for a direct reply without a task. */
  state: string;
  /** The agent's latest status message (a question when input is required). */
  statusText?: string;
  artifacts: Map<string, Artifact>;
  usage?: Usage;
}

/** An empty reply, before anything is known. */
export const emptyReply = (): A2aReply => ({ state: "TASK_STATE_SUBMITTED", artifacts: new Map() });

/** Whether the task will not move without us (ended, or waiting for input/authorization). */
export const settled = (r: A2aReply): boolean => r.state === "message" || TERMINAL_STATES.has(r.state) || INTERRUPTED_STATES.has(r.state);

/** Render parts as text: text as is, data as JSON, files named (their bytes are not inlined). */
export function renderParts(parts: readonly Part[]): string {
  return parts
    .map((p) => {
      if (typeof p.text === "string") return p.text;
      if (p.data !== undefined) return JSON.stringify(p.data);
      if (typeof p.url === "string")
        return `[file${p.filename ? ` ${p.filename}` : ""}${p.mediaType ? ` (${p.mediaType})` : ""}: ${p.url}]`;
      if (typeof p.raw === "string")
        return `[file${p.filename ? ` ${p.filename}` : ""}${p.mediaType ? ` (${p.mediaType})` : ""}: ${Math.floor((p.raw.length * 3) / 4)} bytes not shown]`;
      return "";
    })
    .filter(Boolean)
    .join("\n");
}

/** Usage a peer reports in metadata (`usage: { inputTokens, outputTokens }`; no A2A field is standard). */
function usageIn(metadata: Record<string, unknown> | undefined): Usage | undefined {
  const u = metadata?.usage as { inputTokens?: unknown; outputTokens?: unknown } | undefined;
  if (!u || typeof u !== "object") return undefined;
  const input = typeof u.inputTokens === "number" && u.inputTokens >= 0 ? u.inputTokens : 0;
  const output = typeof u.outputTokens === "number" && u.outputTokens >= 0 ? u.outputTokens : 0;
  return input + output > 0 ? { inputTokens: input, outputTokens: output, totalTokens: input + output } : undefined;
}

function takeMessage(r: A2aReply, m: Message | undefined): void {
  if (!m) return;
  const text = renderParts(m.parts);
  if (text) r.statusText = text;
  r.usage = usageIn(m.metadata) ?? r.usage;
}

function takeArtifact(r: A2aReply, a: Artifact, append: boolean): void {
  const had = r.artifacts.get(a.artifactId);
  if (!append || !had) return void r.artifacts.set(a.artifactId, a);
  // A streamed text arrives in chunks: a chunk continuing a text part joins it rather than starting a line.
  const last = had.parts.at(-1);
  const [first, ...more] = a.parts;
  const joined =
    typeof last?.text === "string" && typeof first?.text === "string"
      ? [...had.parts.slice(0, -1), { ...last, text: last.text + first.text }, ...more]
      : [...had.parts, ...a.parts];
  r.artifacts.set(a.artifactId, { ...had, parts: joined });
}

/** Fold a whole task (a blocking reply, GetTask, or a stream's first event) into the reply. */
export function foldTask(r: A2aReply, t: Task): void {
  r.taskId = t.id;
  if (t.contextId) r.contextId = t.contextId;
  r.state = t.status.state;
  takeMessage(r, t.status.message);
  for (const a of t.artifacts ?? []) takeArtifact(r, a, false);
  r.usage = usageIn(t.metadata) ?? r.usage;
}

/** Fold one streamed event into the reply. */
export function foldEvent(r: A2aReply, e: StreamResponse): void {
  if ("task" in e) foldTask(r, e.task);
  else if ("message" in e) {
    r.state = "message";
    if (e.message.contextId) r.contextId = e.message.contextId;
    takeMessage(r, e.message);
  } else if ("statusUpdate" in e) {
    r.taskId ??= e.statusUpdate.taskId;
    r.state = e.statusUpdate.status.state;
    takeMessage(r, e.statusUpdate.status.message);
    r.usage = usageIn(e.statusUpdate.metadata) ?? r.usage;
  } else if ("artifactUpdate" in e) {
    r.taskId ??= e.artifactUpdate.taskId;
    takeArtifact(r, e.artifactUpdate.artifact, e.artifactUpdate.append === true);
  }
}

const STATE_WORD: Record<string, string> = {
  TASK_STATE_COMPLETED: "completed",
  TASK_STATE_FAILED: "failed",
  TASK_STATE_CANCELED: "canceled",
  TASK_STATE_REJECTED: "rejected",
  TASK_STATE_INPUT_REQUIRED: "input-required",
  TASK_STATE_AUTH_REQUIRED: "auth-required",
  TASK_STATE_WORKING: "working",
  TASK_STATE_SUBMITTED: "submitted",
};

/** A short name of a state (`input-required`), for logs and the model. */
export const stateWord = (state: string): string => STATE_WORD[state] ?? state;

/** The outcome the model observes. */
export function replyOutcome(agent: string, tool: string, r: A2aReply): ToolCallOutcome {
  const artifacts = [...r.artifacts.values()]
    .map((a) => renderParts(a.parts))
    .filter(Boolean)
    .join("\n\n");
  const ids = { taskId: r.taskId || undefined, contextId: r.contextId || undefined };
  const structured = { agent, state: r.state === "message" ? "message" : stateWord(r.state), ...ids };
  const base = { structuredContent: structured, usage: r.usage };
  const answer = artifacts || r.statusText || "";
  if (r.state === "message" || r.state === "TASK_STATE_COMPLETED")
    return { ...base, text: answer || `(the agent '${agent}' answered with no text)`, isError: false };
  if (r.state === "TASK_STATE_INPUT_REQUIRED")
    return {
      ...base,
      isError: false,
      text:
        `The agent '${agent}' needs more input before it can go on (task ${r.taskId}): ${r.statusText ?? "(no question given)"}\n` +
        `To answer, call ${tool} again with ${JSON.stringify({ message: "<your answer>", ...ids })}.`,
    };
  if (r.state === "TASK_STATE_AUTH_REQUIRED")
    return {
      ...base,
      isError: true,
      text: `The agent '${agent}' needs authorization agentd cannot give it (task ${r.taskId}): ${r.statusText ?? "no detail"}`,
    };
  return {
    ...base,
    isError: true,
    text: `The agent '${agent}' ended the task ${stateWord(r.state)}${r.taskId ? ` (task ${r.taskId})` : ""}${answer ? `: ${answer}` : ""}`,
  };
}
