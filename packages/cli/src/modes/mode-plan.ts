/**
 * `agentd run`'s execution mode, from flags and config: which mode, which triggers (the config's, plus
 * one from `--interval` / `--cron` / `--subscribe`, whose instruction is the positional argument), the
 * cron switch and the shutdown grace. Pure: every mistake is one `E_USAGE` / `E_CONFIG_INVALID` line.
 */
import { AgentdError, type AgentdConfig } from "@agentd/sdk";
import {
  checkCronEngine,
  cronTriggerId,
  INTERVAL_TRIGGER_ID,
  subscriptionTriggerId,
  triggerSpecsFromConfig,
  validateTriggerSpec,
  type CronEngine,
  type TriggerSpec,
} from "@agentd/sdk/agent";

import { durationFlag } from "../commands/shared-args.ts";
/** The execution modes of `agentd run`. */
export const MODES = ["once", "interval", "cron", "reactive"] as const;
export type Mode = (typeof MODES)[number];

/** The flags that choose and shape a mode. */
export interface ModeFlags {
  mode?: string;
  interval?: string;
  maxRuns?: string;
  cron?: string;
  tz?: string;
  cronTimezones?: boolean;
  subscribe?: string;
  grace?: string;
  runId?: string;
}

/** Read the mode flags out of citty's parsed args. */
export function modeFlagsFrom(args: Record<string, unknown>): ModeFlags {
  const s = (k: string) => (typeof args[k] === "string" ? (args[k] as string) : undefined);
  const flags: ModeFlags = {};
  const set = <K extends keyof ModeFlags>(k: K, v: ModeFlags[K] | undefined) => v !== undefined && (flags[k] = v);
  set("mode", s("mode"));
  set("interval", s("interval"));
  set("maxRuns", s("max-runs"));
  set("cron", s("cron"));
  set("tz", s("tz"));
  set("cronTimezones", args["cron-timezones"] === true ? true : undefined);
  set("subscribe", s("subscribe"));
  set("grace", s("grace"));
  set("runId", s("run-id"));
  return flags;
}

/** The default shutdown grace. */
export const DEFAULT_GRACE_MS = 30_000;

const usage = (message: string) => new AgentdError("E_USAGE", message);
const FLAG_MODE = { interval: "interval", cron: "cron", subscribe: "reactive" } as const;

/** The mode the flags ask for (`once` when nothing else is asked). */
export function modeOf(flags: ModeFlags): Mode {
  const implied = (Object.keys(FLAG_MODE) as Array<keyof typeof FLAG_MODE>).filter((f) => flags[f] !== undefined);
  if (implied.length > 1)
    throw usage(
      `--${implied.join(" and --")} cannot be combined: one mode per process (use 'agentd serve' with a config file to run several triggers)`,
    );
  const flag = implied[0];
  if (flags.mode !== undefined && !(MODES as readonly string[]).includes(flags.mode))
    throw usage(`--mode expects once, interval, cron or reactive, got '${flags.mode}'`);
  const mode = (flags.mode as Mode | undefined) ?? (flag ? FLAG_MODE[flag] : "once");
  if (flag && FLAG_MODE[flag] !== mode) throw usage(`--${flag} belongs to --mode ${FLAG_MODE[flag]}, not --mode ${mode}`);
  if (flags.maxRuns !== undefined && mode !== "interval") throw usage("--max-runs applies to --mode interval");
  if (flags.tz !== undefined && flags.cron === undefined) throw usage("--tz goes with --cron EXPR");
  if (flags.runId !== undefined && mode !== "once")
    throw usage("--run-id applies to --mode once; triggered runs get their run id from the trigger and the event");
  return mode;
}

/** `--grace` in milliseconds. */
export function graceOf(flags: ModeFlags): number {
  if (flags.grace === undefined) return DEFAULT_GRACE_MS;
  return durationFlag("--grace", flags.grace, "30s");
}

/** Whether the mode's trigger comes from a flag (then the positional argument is its instruction). */
export const hasFlagTrigger = (flags: ModeFlags): boolean =>
  flags.interval !== undefined || flags.cron !== undefined || flags.subscribe !== undefined;

/** The triggers a long-running mode runs. */
export interface TriggerModePlan {
  specs: TriggerSpec[];
  cron: CronEngine;
  jobStore?: string;
}

const KIND = { interval: "interval", cron: "cron", reactive: "subscription" } as const;
const HOW = {
  interval: "pass --interval D (e.g. --interval 5m, or 0 to re-enter at once) or declare triggers.interval",
  cron: "pass --cron EXPR (e.g. --cron '*/15 * * * *') or declare triggers.schedules",
  reactive: "pass --subscribe SERVER:URI or declare triggers.subscriptions",
} as const;

/** The triggers of a long-running mode: the config's of that kind, plus (or, for the interval, instead of) the flag's. */
export function planTriggers(
  mode: Exclude<Mode, "once">,
  flags: ModeFlags,
  config: AgentdConfig,
  instruction: string | undefined,
): TriggerModePlan {
  // --tz asks for a zone, which only the time-zone cron has: it implies that mode rather than failing.
  const cron: CronEngine = flags.cronTimezones || flags.tz !== undefined ? "timezones" : (config.capabilities?.cron ?? "utc");
  const fromConfig = triggerSpecsFromConfig(config, cron);
  let specs = fromConfig.specs.filter((s) => s.kind === KIND[mode]);
  const flagSpec = flagTrigger(flags, config, cron, instruction);
  if (flagSpec?.kind === "interval") specs = specs.filter((s) => s.kind !== "interval");
  if (flagSpec) specs.push(flagSpec);
  if (flags.maxRuns !== undefined && !flagSpec)
    specs = specs.map((s) => (s.kind === "interval" ? { ...s, maxRuns: positive(flags.maxRuns as string, "--max-runs") } : s));
  if (specs.length === 0) throw usage(`--mode ${mode}: nothing to run: ${HOW[mode]}`);
  if (instruction !== undefined && !flagSpec)
    throw usage(`the instruction argument goes with --interval, --cron or --subscribe; configured triggers use their own instruction`);
  for (const spec of specs) validateTriggerSpec(spec, cron);
  return { specs, cron, jobStore: fromConfig.jobStore };
}

function flagTrigger(flags: ModeFlags, config: AgentdConfig, cron: CronEngine, instruction: string | undefined): TriggerSpec | undefined {
  if (!hasFlagTrigger(flags)) return undefined;
  if (instruction === undefined) throw usage('no instruction: pass it as an argument (agentd run --interval 5m "…")');
  if (flags.interval !== undefined) {
    const everyMs = durationFlag("--interval", flags.interval, "5m");
    const maxRuns = flags.maxRuns !== undefined ? positive(flags.maxRuns, "--max-runs") : undefined;
    return { kind: "interval", id: INTERVAL_TRIGGER_ID, everyMs, instruction, maxRuns };
  }
  if (flags.cron !== undefined) {
    const tz = flags.tz;
    checkCronEngine(`--cron '${flags.cron}'`, tz !== undefined ? { tz } : {}, cron);
    return { kind: "cron", id: cronTriggerId(flags.cron, tz), cron: flags.cron, instruction, tz };
  }
  const target = flags.subscribe as string;
  const colon = target.indexOf(":");
  const server = colon > 0 ? target.slice(0, colon) : "";
  const uri = colon > 0 ? target.slice(colon + 1) : "";
  if (!server || !uri) throw usage(`--subscribe expects SERVER:URI such as fs:file:///data/inbox.md, got '${target}'`);
  if (!config.mcpServers?.[server])
    throw usage(
      `--subscribe: server '${server}' is not in mcpServers (${Object.keys(config.mcpServers ?? {}).join(", ") || "none configured"})`,
    );
  return { kind: "subscription", id: subscriptionTriggerId(server, uri), server, uri, instruction };
}

function positive(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw usage(`${flag} expects a whole number of at least 1, got '${value}'`);
  return n;
}
