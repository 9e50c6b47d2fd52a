/**
 * `agentd run`: the execution modes. `once` (the default) runs one instruction to a final answer;
 * `interval`, `cron` and `reactive` keep running, one run per trigger event, until SIGTERM/SIGINT.
 * See `src/modes/README.md`.
 */
import { AgentdError } from "@agentd/sdk";
import { resolveConfig, runIdFrom } from "@agentd/sdk/config";
import { defineCommand } from "citty";
import { formatResult } from "../modes/format-result.ts";
import { graceOf, hasFlagTrigger, modeFlagsFrom, modeOf, planTriggers } from "../modes/mode-plan.ts";
import { failureEnvelope, reported, runOnce } from "../modes/run-once.ts";
import { statusLineWanted } from "../modes/status-line.ts";
import { conversationFromFlags } from "../modes/conversation-flags.ts";
import { runTriggered } from "../modes/run-triggered.ts";
import { fetchPromptInstruction, parsePromptRef } from "../modes/server-prompt.ts";
import { stderrLogger } from "../telemetry.ts";
import { buildPromptArguments, repeatedFlag } from "./mcp-args.ts";
import { configArgs, overridesFrom, readInstruction, readJsonFile } from "./shared-args.ts";

export { formatResult };

export const runExamples = [
  'AGENT_INTELLIGENCE=http://127.0.0.1:11434/v1 AGENT_MODEL=qwen3 agentd run "Summarise today\'s inbox"',
  'agentd run --config agentd.json "Triage the open issues" --json',
  'agentd run --stream "Summarise the inbox" | jq -c \'select(.type == "tool-call-start")\'   # watch it as JSON lines',
  'agentd run --json "Triage" > out.json   # exit 1 failed (content filter, empty answer, gave up), 2 usage, 3 budget, 4 upstream; out.json says why',
  'echo "What changed?" | agentd run --max-turns 5 --deadline 2m',
  'agentd run "Extract the invoice" --output-schema invoice.schema.json',
  "agentd run --prompt github/review-pr --arg pr=42                # a server's prompt is the instruction",
  'agentd run --continue "Summarise the inbox"; agentd run --continue "Now draft replies to the urgent ones"',
  'agentd run --resume c-1b2c… "And the third one?"               # an earlier conversation (agentd conversations list)',
  'agentd run --conversation inbox "What is new since last time?"  # a named one: created, then continued',
  'agentd run --cron @daily --conversation nightly "Triage; say what changed since last night"  # each run sees the last',
  'agentd run --interval 5m "Check the queue"                    # every 5 minutes after the last run ended',
  'agentd run --interval 0 --max-runs 3 "Work the backlog"       # three runs back to back, then exit',
  "agentd run --cron '0 7 * * 1-5' \"Daily report\"                # 5-field cron, UTC",
  'agentd run --cron @daily --tz Europe/Berlin "Daily report"      # midnight in Berlin (--tz: the time-zone cron)',
  'agentd run --subscribe fs:file:///data/inbox.md "Triage: {{resource.text}}"',
  "agentd run --mode reactive --config agentd.json                # the config's triggers.subscriptions",
];

/** `--json`, `--stream` and `--output-format` agree on one output format. */
function outputFormat(args: Record<string, unknown>): "text" | "json" | "stream-json" {
  const named = args["output-format"];
  if (named !== undefined && named !== "text" && named !== "json" && named !== "stream-json")
    throw new AgentdError("E_USAGE", `--output-format expects text, json or stream-json, got '${String(named)}'`);
  const wanted = new Set<string>([
    ...(typeof named === "string" && named !== "text" ? [named] : []),
    ...(args.json === true ? ["json"] : []),
    ...(args.stream === true ? ["stream-json"] : []),
  ]);
  if (wanted.size > 1) throw new AgentdError("E_USAGE", "choose one output format: --json (one document) or --stream (JSON lines)");
  return ([...wanted][0] as "json" | "stream-json" | undefined) ?? "text";
}

/** What `agentd run --help` says after the examples: where the key comes from, what a duration is. */
export const runNotes = [
  "API key (sent only to the model endpoint, never logged), the first that is set:",
  "  AGENT_API_KEY, then the variable model.apiKeyEnv names, then the dialect's own:",
  "  OPENAI_API_KEY (openai, responses), ANTHROPIC_API_KEY (anthropic), GEMINI_API_KEY then GOOGLE_API_KEY (gemini).",
  "  A 401/403 names the variable the key came from (never the key), or says none was set.",
  "Model name: --model, AGENT_MODEL or model.name (required; agentd never sends a made-up one).",
  "Durations need a unit: 500ms, 30s, 5m, 1h30m, 1d (a bare number is refused; 0 is 0).",
  "Conversations (--continue, --resume, --conversation): kept in durability.store when configured, else in",
  "  $XDG_STATE_HOME/agentd/conversations (~/.local/state/agentd/conversations); cut to their oldest whole turns",
  "  past 64,000 tokens; expired after 30 days unused. --json carries conversationId. See docs/conversations.md.",
];

export const runCommand = defineCommand({
  meta: { name: "run", description: "Run an instruction once, or keep running on an interval, a cron schedule or resource changes." },
  args: {
    instruction: {
      type: "positional",
      required: false,
      description: "What to do (once: read from stdin when omitted and piped); the flag trigger's instruction template",
    },
    ...configArgs,
    mode: { type: "string", description: "once (default), interval, cron or reactive; implied by --interval, --cron, --subscribe" },
    interval: { type: "string", description: "Interval mode: pause between the end of a run and the next, e.g. 5m (0 = re-enter at once)" },
    "max-runs": { type: "string", description: "Interval mode: stop after N runs, then exit" },
    cron: {
      type: "string",
      description: "Cron mode: a 5-field schedule, UTC unless --tz, e.g. '*/15 * * * *', or @hourly, @daily, @weekly, @monthly, @yearly",
    },
    tz: { type: "string", description: "Cron mode: IANA time zone for --cron, e.g. Europe/Berlin (implies --cron-timezones)" },
    "cron-timezones": {
      type: "boolean",
      description: 'Cron with time zones (DST-aware), missed-tick catch-up and a job store; same as capabilities.cron "timezones"',
    },
    subscribe: { type: "string", description: "Reactive mode: watch SERVER:URI (a server from mcpServers); runs when it changes" },
    "watch-config": {
      type: "boolean",
      default: true,
      description: "Long-running modes: reload when the config file changes (--no-watch-config: only on SIGHUP)",
    },
    grace: { type: "string", description: "On SIGTERM/SIGINT, let in-flight runs finish this long before cancelling them (default 30s)" },
    json: {
      type: "boolean",
      description:
        "Print one JSON document {runId, status, text|output or error, exitCode, usage, turns, …}, on failure too (one a line per run when long-running)",
    },
    stream: {
      type: "boolean",
      description:
        "Once: print the run's events as JSON lines as they happen (text deltas, tool calls, usage), ending with the --json document as a finish event",
    },
    "output-format": { type: "string", description: "text (default), json (same as --json) or stream-json (same as --stream)" },
    quiet: {
      type: "boolean",
      alias: "q",
      description: "No live status line on a terminal; telemetry at warnings and errors only (unless AGENT_LOG_LEVEL)",
    },
    "run-id": {
      type: "string",
      description: "Once: stable idempotency id sent in _meta of every tool call (default: RUN_ID, else random)",
    },
    "output-schema": { type: "string", description: "Once: JSON Schema file the final answer must satisfy (printed as JSON)" },
    prompt: { type: "string", description: "Once: use the prompt NAME of MCP server SERVER (SERVER/NAME) as the instruction" },
    arg: { type: "string", alias: "a", description: "With --prompt: a prompt argument KEY=VALUE; repeatable" },
    continue: {
      type: "boolean",
      description: "Once: continue the newest conversation of this config (the model sees the earlier exchanges); a new one if none",
    },
    resume: { type: "string", description: "Once: continue the conversation ID (agentd conversations list shows yours)" },
    conversation: {
      type: "string",
      description: "Continue the conversation NAME, creating it on first use; long-running: every run continues it (one at a time)",
    },
  },
  async run({ args, rawArgs }) {
    const flags = modeFlagsFrom(args);
    const mode = modeOf(flags);
    const graceMs = graceOf(flags);
    const format = outputFormat(args);
    const json = format === "json";
    const stream = format === "stream-json";
    const quiet = args.quiet === true;
    // --quiet: telemetry at warnings and errors, for this process and the servers and subagents it starts.
    if (quiet && !process.env.AGENT_LOG_LEVEL) process.env.AGENT_LOG_LEVEL = "warn";
    if (stream && mode !== "once")
      throw new AgentdError(
        "E_USAGE",
        "--stream (--output-format stream-json) watches a single run: drop the mode flags, or use --json for one line per run",
      );
    if (args.prompt && (mode !== "once" || args.instruction))
      throw new AgentdError("E_USAGE", "--prompt is the instruction of a single run: drop the positional instruction and the mode flags");
    const conversation = conversationFromFlags(args, mode);
    if (mode === "once") {
      // The run's id, read once (`--run-id`, else RUN_ID) and passed down: the config answers with it
      // (resolved.runId, which the run takes), and a failure before the config resolves reports it.
      const overrides = overridesFrom(args, rawArgs);
      const runId = runIdFrom(overrides);
      try {
        const typed = args.prompt ? undefined : await readInstruction(args.instruction);
        const resolved = await resolveConfig({ configPath: args.config, overrides: { ...overrides, runId } });
        // In a terminal, missing prompt arguments are asked for (@clack/prompts, loaded only then).
        const ask =
          args.prompt && process.stdin.isTTY && process.stderr.isTTY
            ? (await import("../modes/ask-prompt-arguments.ts")).askInTerminal
            : undefined;
        const instruction =
          typed ??
          (await fetchPromptInstruction(
            resolved.config,
            parsePromptRef(args.prompt ?? "", buildPromptArguments(repeatedFlag(rawArgs, "arg", "a"))),
            stderrLogger(),
            ask ? { ask } : {},
          ));
        const outputSchema = args["output-schema"] ? await readJsonFile(args["output-schema"], "--output-schema") : undefined;
        return await runOnce({
          resolved,
          instruction,
          json,
          stream,
          statusLine: statusLineWanted(quiet),
          interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
          streamAnswer: process.stdout.isTTY === true,
          graceMs,
          outputSchema,
          conversation,
        });
      } catch (e) {
        // With --json / --stream stdout always gets its one document, for a failure before the run too.
        if ((json || stream) && !(e !== null && typeof e === "object" && reported.has(e))) {
          const envelope = failureEnvelope(runId ?? "", e);
          process.stdout.write(`${JSON.stringify(stream ? { type: "finish", ...envelope } : envelope)}\n`);
        }
        throw e;
      }
    }
    if (args["output-schema"]) throw new AgentdError("E_USAGE", "--output-schema applies to --mode once");
    const instruction = hasFlagTrigger(flags) ? await readInstruction(args.instruction) : args.instruction?.trim() || undefined;
    const resolve = () => resolveConfig({ configPath: args.config, overrides: overridesFrom(args, rawArgs) });
    const resolved = await resolve();
    const planned = planTriggers(mode, flags, resolved.config, instruction);
    // --conversation NAME in a long-running mode: every run of a trigger that names none continues NAME.
    const named = typeof conversation === "object" && "id" in conversation ? conversation.id : undefined;
    const plan = named ? { ...planned, specs: planned.specs.map((s) => ({ ...s, conversation: s.conversation ?? named })) } : planned;
    return runTriggered({
      mode,
      plan,
      resolved,
      json,
      graceMs,
      reloadConfig: async () => (await resolve()).config,
      watchConfig: args["watch-config"] !== false,
    });
  },
});
