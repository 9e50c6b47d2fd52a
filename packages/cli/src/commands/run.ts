/**
 * `agentd run`: the execution modes. `once` (the default) runs one instruction to a final answer;
 * `interval`, `cron` and `reactive` keep running, one run per trigger event, until SIGTERM/SIGINT.
 * See `src/modes/README.md`.
 */
import { AgentdError, resolveConfig } from "@agentd/sdk";
import { defineCommand } from "citty";
import { formatResult } from "../modes/format-result.ts";
import { graceOf, hasFlagTrigger, modeFlagsFrom, modeOf, planTriggers } from "../modes/mode-plan.ts";
import { runOnce } from "../modes/run-once.ts";
import { runTriggered } from "../modes/run-triggered.ts";
import { fetchPromptInstruction, parsePromptRef } from "../modes/server-prompt.ts";
import { stderrLogger } from "../telemetry.ts";
import { buildPromptArguments, repeatedFlag } from "./mcp-args.ts";
import { configArgs, overridesFrom, readInstruction, readJsonFile } from "./shared-args.ts";

export { formatResult };

export const runExamples = [
  'AGENT_INTELLIGENCE=http://127.0.0.1:11434/v1 AGENT_MODEL=qwen3 agentd run "Summarise today\'s inbox"',
  'agentd run --config agentd.json "Triage the open issues" --json',
  'echo "What changed?" | agentd run --max-turns 5 --deadline 2m',
  'agentd run "Extract the invoice" --output-schema invoice.schema.json',
  "agentd run --prompt github/review-pr --arg pr=42                # a server's prompt is the instruction",
  'agentd run --interval 5m "Check the queue"                    # every 5 minutes after the last run ended',
  'agentd run --interval 0 --max-runs 3 "Work the backlog"       # three runs back to back, then exit',
  "agentd run --cron '0 7 * * 1-5' \"Daily report\"                # 5-field cron, UTC",
  "agentd run --cron '0 7 * * *' --tz Europe/Berlin --cron-timezones \"Daily report\"",
  'agentd run --subscribe fs:file:///data/inbox.md "Triage: {{resource.text}}"',
  "agentd run --mode reactive --config agentd.json                # the config's triggers.subscriptions",
];

export const runCommand = defineCommand({
  meta: { name: "run", description: "Run an instruction once, or keep running on an interval, a cron schedule or resource changes." },
  args: {
    instruction: { type: "positional", required: false, description: "What to do (once: read from stdin when omitted and piped); the flag trigger's instruction template" },
    ...configArgs,
    mode: { type: "string", description: "once (default), interval, cron or reactive; implied by --interval, --cron, --subscribe" },
    interval: { type: "string", description: "Interval mode: pause between the end of a run and the next, e.g. 5m (0 = re-enter at once)" },
    "max-runs": { type: "string", description: "Interval mode: stop after N runs, then exit" },
    cron: { type: "string", description: "Cron mode: a 5-field schedule, UTC, e.g. '*/15 * * * *'" },
    tz: { type: "string", description: "Cron mode: IANA time zone for --cron (needs --cron-timezones)" },
    "cron-timezones": { type: "boolean", description: 'Cron with time zones (DST-aware), missed-tick catch-up and a job store; same as capabilities.cron "timezones"' },
    subscribe: { type: "string", description: "Reactive mode: watch SERVER:URI (a server from mcpServers); runs when it changes" },
    "watch-config": { type: "boolean", default: true, description: "Long-running modes: reload when the config file changes (--no-watch-config: only on SIGHUP)" },
    grace: { type: "string", description: "On SIGTERM/SIGINT, let in-flight runs finish this long before cancelling them (default 30s)" },
    json: { type: "boolean", description: "Print a JSON envelope {runId, text|output, usage, turns, stopReason} (one a line per run when long-running)" },
    "run-id": { type: "string", description: "Once: stable idempotency id sent in _meta of every tool call (default: RUN_ID, else random)" },
    "output-schema": { type: "string", description: "Once: JSON Schema file the final answer must satisfy (printed as JSON)" },
    prompt: { type: "string", description: "Once: use the prompt NAME of MCP server SERVER (SERVER/NAME) as the instruction" },
    arg: { type: "string", alias: "a", description: "With --prompt: a prompt argument KEY=VALUE; repeatable" },
  },
  async run({ args, rawArgs }) {
    const flags = modeFlagsFrom(args);
    const mode = modeOf(flags);
    const graceMs = graceOf(flags);
    const json = args.json === true;
    if (args.prompt && (mode !== "once" || args.instruction))
      throw new AgentdError("E_USAGE", "--prompt is the instruction of a single run: drop the positional instruction and the mode flags");
    if (mode === "once") {
      const typed = args.prompt ? undefined : await readInstruction(args.instruction);
      const resolved = await resolveConfig({ ...(args.config ? { configPath: args.config } : {}), overrides: overridesFrom(args, rawArgs) });
      // In a terminal, missing prompt arguments are asked for (@clack/prompts, loaded only then).
      const ask = args.prompt && process.stdin.isTTY && process.stderr.isTTY ? (await import("../modes/ask-prompt-arguments.ts")).askInTerminal : undefined;
      const instruction =
        typed ??
        (await fetchPromptInstruction(resolved.config, parsePromptRef(args.prompt ?? "", buildPromptArguments(repeatedFlag(rawArgs, "arg", "a"))), stderrLogger(), ask ? { ask } : {}));
      const outputSchema = args["output-schema"] ? await readJsonFile(args["output-schema"], "--output-schema") : undefined;
      const runId = args["run-id"];
      return runOnce({ resolved, instruction, json, graceMs, ...(runId ? { runId } : {}), ...(outputSchema ? { outputSchema } : {}) });
    }
    if (args["output-schema"]) throw new AgentdError("E_USAGE", "--output-schema applies to --mode once");
    const instruction = hasFlagTrigger(flags) ? await readInstruction(args.instruction) : args.instruction?.trim() || undefined;
    const resolve = () => resolveConfig({ ...(args.config ? { configPath: args.config } : {}), overrides: overridesFrom(args, rawArgs) });
    const resolved = await resolve();
    const plan = planTriggers(mode, flags, resolved.config, instruction);
    return runTriggered({ mode, plan, resolved, json, graceMs, reloadConfig: async () => (await resolve()).config, watchConfig: args["watch-config"] !== false });
  },
});
