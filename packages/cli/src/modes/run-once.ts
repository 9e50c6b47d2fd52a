/**
 * `agentd run --mode once` (the default): run the instruction, print the result on stdout, exit.
 *
 * The run id is `--run-id`, else `RUN_ID`, else fresh; it travels in `_meta` of every tool call, so a
 * CronJob retry is recognisable to the tools. A final answer of exactly `ALREADY_DONE` means the work was
 * done before: exit 0 with nothing on stdout (`--json` prints the envelope with `"status":"already-done"`).
 *
 * The run is watched through the SDK's stream (`agent.stream`): `--stream` prints every event as a JSON
 * line and ends with the `finish` event plus `exitCode`; `--json` prints that last object alone (without
 * `type`), for a failed run too; on a terminal a live status line shows on stderr (status-line.ts). The
 * model is asked for a streamed response only when someone watches it (`--stream` or the status line).
 *
 * A tool call the `approvals` rules hold is asked in the terminal, or denied with one stderr line when no
 * person is there (approval-channel.ts).
 *
 * SIGTERM/SIGINT: one line at once says what happens (the current step finishes) and how to stop now (the
 * signal again). The run may finish within the grace period (its result is printed, and `--json`/`--stream`
 * name the signal as `interrupted`); then it is cancelled (`notifications/cancelled` to the servers, the
 * model request aborted). Either way the exit code is 143/130 (thrown as `E_ABORTED` with the signal).
 */
import { AgentdError, type ConversationRef, createAgentFromConfig, type Logger, type RunFinish } from "@agentd/sdk";
import { conversationsFromConfig, newRunId, runStatusOf } from "@agentd/sdk/agent";
import type { ResolvedConfig } from "@agentd/sdk/config";
import { scrubSecrets } from "@agentd/sdk/telemetry";
import { agentOptions } from "../agent-options.ts";
import { EXIT, exitCodeFor } from "../exit-codes.ts";
import { stderrLogger } from "../telemetry.ts";
import { cliApprovalChannel } from "./approval-channel.ts";
import { conversationScope } from "./conversation-flags.ts";
import { createAnswerStream } from "./answer-stream.ts";
import { answerFor, formatText } from "./format-result.ts";
import { drainingRecord, interruptedBy, shutdownSignals } from "./shutdown-signals.ts";
import { createStatusLine, type StatusLine } from "./status-line.ts";

/** What a once run needs. */
export interface OnceOptions {
  resolved: ResolvedConfig;
  instruction: string;
  /** Print the finish envelope (`--json`). */
  json: boolean;
  /** Print every event as a JSON line (`--stream`). */
  stream?: boolean;
  /** Show the live status line on stderr (a terminal, no NO_COLOR, no --quiet). */
  statusLine?: boolean;
  /** A person is at the terminal (stdin and stderr are TTYs): tool calls that need approval are asked there. */
  interactive?: boolean;
  /** Write the model's text as it streams (stdout is a terminal); ignored with json, stream or an output schema. */
  streamAnswer?: boolean;
  outputSchema?: Record<string, unknown>;
  graceMs: number;
  /** The conversation to continue (`--continue`, `--resume`, `--conversation`). */
  conversation?: ConversationRef;
}

/** Errors whose JSON envelope is already on stdout (the caller must not print another). */
export const reported = new WeakSet<object>();

/** The `--json` failure document for an error raised before a run could start (config, connection). */
export function failureEnvelope(runId: string, error: unknown): Record<string, unknown> {
  const code = AgentdError.isInstance(error) ? error.code : "E_INTERNAL";
  const reason = AgentdError.isInstance(error) ? error.options.data?.reason : undefined;
  return {
    runId,
    status: runStatusOf(error),
    error: {
      code,
      message: error instanceof Error ? error.message : String(error),
      reason: typeof reason === "string" ? reason : undefined,
    },
    exitCode: exitCodeFor(error),
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    turns: 0,
    toolCalls: 0,
  };
}

/** Run once; resolves to 0, or throws (the CLI maps the error to the exit code; see exit-codes.ts). */
export async function runOnce(options: OnceOptions): Promise<number> {
  const { resolved } = options;
  const status: StatusLine | undefined = options.statusLine ? createStatusLine({ write: (s) => process.stderr.write(s) }) : undefined;
  const logger: Logger = stderrLogger({ write: status ? (s: string) => status.printAbove(s) : undefined });
  // `--run-id`, else RUN_ID (read once, by the command: resolved.runId), else minted by the agent's one minting function.
  const runId = resolved.runId ?? newRunId();
  // Whatever reaches stdout is scrubbed of the values expanded from ${VAR} (a tool or model may echo one).
  const out = (raw: string) => {
    const s = scrubSecrets(raw);
    return status ? status.printAbove(s, (t) => process.stdout.write(t)) : process.stdout.write(s);
  };
  let agent: ReturnType<typeof createAgentFromConfig>;
  try {
    agent = createAgentFromConfig(
      resolved.config,
      agentOptions(resolved, logger, {
        requireModel: true,
        conversations: conversationsFromConfig(resolved.config, logger, { scope: conversationScope(resolved) }),
      }),
    );
  } catch (e) {
    status?.close();
    if (options.json || options.stream) {
      out(`${JSON.stringify(options.stream ? { type: "finish", ...failureEnvelope(runId, e) } : failureEnvelope(runId, e))}\n`);
      if (e !== null && typeof e === "object") reported.add(e);
    }
    throw e;
  }
  const shutdown = shutdownSignals();
  let drained: Promise<void> | undefined;
  void shutdown.received.then((signal) => {
    logger.warn("shutdown.draining", drainingRecord(signal, options.graceMs, agent.status().inFlight));
    // The run may finish within the grace (its result is printed); then the agent cancels it.
    drained = agent.drain(options.graceMs, signal);
  });
  // On a terminal the answer is written as the model streams it (answer-stream.ts); piped, only at the end.
  const answer =
    options.streamAnswer && !options.json && !options.stream && !options.outputSchema
      ? createAnswerStream((t) => process.stdout.write(answerFor(process.stdout, t)), status)
      : undefined;
  try {
    const askApproval = cliApprovalChannel({
      interactive: options.interactive ?? false,
      writeLine: (line) => (status ? status.printAbove(line) : process.stderr.write(line)),
      hold: status ? () => status.hold() : undefined,
    });
    const events = agent.stream(options.instruction, {
      runId,
      trigger: "once",
      askApproval,
      conversation: options.conversation,
      stream: options.stream === true || status !== undefined || answer !== undefined,
      outputSchema: options.outputSchema,
    });
    let finish: RunFinish | undefined;
    for await (const e of events) {
      status?.event(e);
      answer?.event(e);
      if (e.type === "finish") finish = e;
      else if (options.stream) out(`${JSON.stringify(e)}\n`);
    }
    status?.close();
    const signal = shutdown.signal();
    const error = await endingError(finish, events.result, signal);
    if (finish) printFinish(finish, { options, out, answer, signal, exitCode: error === undefined ? EXIT.ok : exitCodeFor(error) });
    if (finish?.status === "already-done") logger.info("run.already-done", { runId, durationMs: finish.durationMs });
    if (error !== undefined) {
      if ((options.json || options.stream) && typeof error === "object" && error !== null) reported.add(error);
      throw error;
    }
    return EXIT.ok;
  } finally {
    status?.close();
    shutdown.dispose();
    await drained;
    await agent.close();
  }
}

/** The run's error as the exit code sees it: its failure, or the signal that cut it short (130/143, also when it finished within the grace). */
async function endingError(finish: RunFinish | undefined, result: Promise<unknown>, signal: NodeJS.Signals | undefined): Promise<unknown> {
  const failure =
    finish && "error" in finish
      ? await result.then(
          () => undefined,
          (e: unknown) => e,
        )
      : undefined;
  return signal && (failure === undefined || (AgentdError.isInstance(failure) && failure.code === "E_ABORTED"))
    ? interruptedBy(signal)
    : failure;
}

/** Print how the run finished: the envelope (`--stream`, `--json`) or the answer, and where to go on from. */
function printFinish(
  finish: RunFinish,
  p: {
    options: OnceOptions;
    out: (s: string) => unknown;
    answer: ReturnType<typeof createAnswerStream> | undefined;
    signal: string | undefined;
    exitCode: number;
  },
): void {
  const { options, out, signal, exitCode } = p;
  const { type: _type, ...envelope } = finish;
  // A run that finished after an interrupt is no plain success: the envelope names the signal.
  const interrupted = signal ? { interrupted: signal } : {};
  if (options.stream) out(`${JSON.stringify({ ...finish, ...interrupted, exitCode })}\n`);
  else if (options.json) out(`${JSON.stringify({ ...envelope, ...interrupted, exitCode })}\n`);
  else if (finish.status === "ok" && !p.answer?.wrote(finish.text ?? "")) out(answerFor(process.stdout, formatText(finish)));
  // In text, where to go on from: on stderr, so stdout stays the answer alone.
  if (!options.json && !options.stream && finish.status === "ok" && finish.conversationId)
    process.stderr.write(
      `conversation ${finish.conversationId}: go on with agentd run --continue (or --resume ${finish.conversationId})\n`,
    );
}
