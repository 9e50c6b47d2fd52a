/**
 * The agentd CLI as a pure function: `runCli(argv)` resolves to an exit code and never calls process.exit
 * (only main.ts does). A user's mistake is one clear line on stderr, never a stack trace.
 */
import { AgentdError } from "@agentd/sdk";
import { scrubSecrets } from "@agentd/sdk/telemetry";
import { type ArgsDef, type CommandDef, runCommand } from "citty";
import { loadCommand, rootCommand, rootExamples } from "./commands/index.ts";
import { EXIT, exitCodeFor } from "./exit-codes.ts";
import { forTerminal } from "./terminal-text.ts";
import { helpWidth, renderHelp } from "./help-text.ts";

/** Where the CLI writes. Tests pass their own. */
export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Whether stdout is a colour terminal (default false: a custom io gets plain text). NO_COLOR always wins. */
  color?: boolean;
  /** The terminal's width, for `--help` (default 80: a custom io is not a terminal). */
  columns?: number;
}

const defaultIo: CliIo = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  get color() {
    return process.stdout.isTTY === true;
  },
  get columns() {
    return process.stdout.isTTY ? process.stdout.columns : undefined;
  },
};

const ANSI = /\x1b\[[0-9;]*m/g;
/** NO_COLOR (https://no-color.org): present and not empty means no colour, whatever the terminal. */
const colourAllowed = (wanted: boolean | undefined) => wanted === true && !process.env.NO_COLOR;

type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);
const resolve = async <T>(v: Resolvable<T>): Promise<T> => (typeof v === "function" ? (v as () => T | Promise<T>)() : v);

/** Find the (sub)command named by the leading positional arguments, loading only the modules on that path. */
async function resolveCommand(argv: string[]): Promise<{ cmd: CommandDef<any>; parent?: CommandDef<any>; path: string[] }> {
  let cmd: CommandDef<any> = rootCommand;
  let parent: CommandDef<any> | undefined;
  const path: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith("-")) break;
    const subs = (await resolve(cmd.subCommands ?? {})) as Record<string, Resolvable<CommandDef<any>>>;
    if (!Object.hasOwn(subs, arg)) break;
    const next = await resolve(subs[arg]!);
    parent = cmd;
    cmd = next;
    path.push(arg);
  }
  return { cmd, parent: parent || undefined, path };
}

/**
 * Usage text of a command, with its examples and notes, laid out to `columns` (default: the terminal's
 * width, 80 when stdout is not a terminal); plain unless `color` (default: stdout is a terminal).
 */
export async function usageOf(argv: string[], options: { color?: boolean; columns?: number } = {}): Promise<string> {
  const { cmd, parent, path } = await resolveCommand(argv);
  const entry = path.length ? await loadCommand(path.join(" ")) : { examples: rootExamples, notes: undefined };
  const columns = options.columns ?? (process.stdout.isTTY ? process.stdout.columns : undefined);
  return renderHelp(cmd, parent, {
    width: helpWidth(columns),
    color: colourAllowed(options.color ?? process.stdout.isTTY),
    examples: entry?.examples,
    notes: entry?.notes,
  });
}

type Flag = { name: string; boolean: boolean };
const camel = (name: string) => name.replace(/[-_]+(.)/g, (_, c: string) => c.toUpperCase());
const kebab = (name: string) =>
  name
    .replace(/([a-z\d])([A-Z])/g, "$1-$2")
    .replace(/_/g, "-")
    .toLowerCase();
/** Flags renamed to say what they do (they used planning codes): refused with a line naming the new one. */
const RENAMED: Record<string, string> = { "cron-v2": "cron-timezones" };

/** Flags every command takes (runCli answers them before citty runs). */
const HELP: ArgsDef = { help: { type: "boolean", alias: "h" } };
const ROOT: ArgsDef = { ...HELP, version: { type: "boolean", alias: "v" } };

/** The spellings citty's parser accepts: name, camelCase and kebab-case forms, aliases (`--c` too); shorts. */
function flagTable(defs: ArgsDef): { long: Map<string, Flag>; short: Map<string, Flag> } {
  const long = new Map<string, Flag>();
  const short = new Map<string, Flag>();
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") continue;
    const flag = { name, boolean: def.type === "boolean" };
    const alias = (def as { alias?: string | string[] }).alias;
    const aliases = alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
    for (const s of [name, camel(name), kebab(name), ...aliases]) long.set(s, flag);
    for (const s of [name, ...aliases]) if (s.length === 1) short.set(s, flag);
  }
  return { long, short };
}

/** Edit distance with adjacent transpositions counted as one edit (optimal string alignment). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  return d[a.length]![b.length]!;
}

/** The known flag closest to `typed` (a name without dashes), if one is a small edit away. */
function closest(typed: string, long: Map<string, Flag>): string | undefined {
  const wanted = kebab(typed);
  let best: { flag: string; d: number } | undefined;
  for (const [spelling, flag] of long) {
    if (spelling.length === 1) continue;
    const forms: Array<[string, string]> = [[spelling, flag.name]];
    if (flag.boolean) forms.push([`no-${spelling}`, `no-${flag.name}`]);
    for (const [form, shown] of forms) {
      const d = Math.min(distance(typed, form), distance(wanted, kebab(form)));
      if (d <= (form.length <= 4 ? 1 : 2) && (!best || d < best.d)) best = { flag: `--${shown}`, d };
    }
  }
  return best?.flag;
}

/** The command closest to `typed` (`rnu` → `run`), if one is a small edit away — as for flags. */
function closestCommand(typed: string): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of Object.keys(rootCommand.subCommands ?? {})) {
    const d = distance(typed.toLowerCase(), name);
    if (d <= (name.length <= 4 ? 1 : 2) && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/**
 * Refuse a flag the (sub)command does not take: citty would ignore it silently (`--max-turn 1` would run
 * 20 turns). Mirrors citty's parser: `--no-X` tokens are taken out first (for booleans), a string flag
 * takes the next token as its value, `-abc` groups short booleans, and nothing after a literal `--` is a
 * flag. Throws E_USAGE naming the closest known flag.
 */
export async function checkFlags(argv: string[]): Promise<void> {
  const { cmd, path } = await resolveCommand(argv);
  const defs = (typeof cmd.args === "function" ? await cmd.args() : await cmd.args) ?? {};
  const { long, short } = flagTable({ ...(path.length ? HELP : ROOT), ...defs });
  const where = ["agentd", ...path].join(" ");
  const unknown = (token: string, guess?: string) =>
    new AgentdError("E_USAGE", `unknown flag ${token} for '${where}'${guess ? ` (did you mean ${guess}?)` : ""}`);
  const end = argv.indexOf("--");
  const tokens = argv.slice(path.length, end < 0 ? argv.length : end).filter((t) => {
    if (!t.startsWith("--no-")) return true;
    if (!long.get(t.slice(5))?.boolean) throw unknown(t.split("=")[0]!, closest(t.slice(2).split("=")[0]!, long));
    return false;
  });
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.startsWith("--")) {
      const eq = t.indexOf("=");
      const name = t.slice(2, eq < 0 ? undefined : eq);
      const flag = long.get(name);
      const renamed = RENAMED[name];
      if (!flag && renamed && long.has(renamed)) throw new AgentdError("E_USAGE", `--${name} was renamed --${renamed}`);
      if (!flag) throw unknown(`--${name}`, closest(name, long));
      if (!flag.boolean && eq < 0) i++;
    } else if (t.startsWith("-") && t.length > 1) {
      // `-config x`: a long name with one dash would parse as `-c onfig`; say what was meant instead.
      if (t.length > 2 && long.has(t.slice(1))) throw unknown(t, `--${long.get(t.slice(1))!.name}`);
      for (let j = 1; j < t.length; j++) {
        const flag = short.get(t[j]!);
        if (!flag) throw unknown(`-${t[j]}`);
        if (flag.boolean) continue;
        if (j === t.length - 1) i++; // `-c file`; otherwise the rest of the token is the value (`-cfile`)
        break;
      }
    }
  }
}

/** Where each budget is set, for the line after a run stopped by it. */
const BUDGET_FLAGS: Record<string, string> = {
  E_BUDGET_TURNS: "--max-turns N (or limits.maxTurns in agentd.json; default 20)",
  E_BUDGET_TOKENS: "--max-tokens N (or limits.maxTokens in agentd.json)",
  E_BUDGET_COST: "--max-cost USD (or limits.maxCostUsd in agentd.json)",
  E_BUDGET_DEADLINE: "--deadline, e.g. 10m (or limits.deadline in agentd.json)",
};

/** Run the CLI. Resolves to the process exit code. */
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h") || argv.length === 0) {
    io.stdout(
      await usageOf(
        argv.filter((a) => a !== "--help" && a !== "-h"),
        { color: colourAllowed(io.color), columns: io.columns ?? 80 },
      ),
    );
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) argv = ["version"];
  const { path } = await resolveCommand(argv);
  if (path.length === 0 && !argv[0]!.startsWith("-")) {
    const guess = closestCommand(argv[0]!);
    io.stderr(
      `agentd: unknown command '${argv[0]}'${guess ? ` (did you mean '${guess}'?)` : ""}. Run 'agentd --help' to see the commands.\n`,
    );
    return EXIT.usage;
  }
  try {
    await checkFlags(argv);
    const { result } = await runCommand(rootCommand, { rawArgs: argv });
    return typeof result === "number" ? result : EXIT.ok;
  } catch (error) {
    const code = exitCodeFor(error);
    // A value from the environment (a header, a URL) can come back inside an upstream's error text, and so
    // can a peer's control characters: the line is shown escaped.
    io.stderr(`agentd: ${forTerminal(scrubSecrets(describeError(error)), { lines: true })}
`);
    const raise = AgentdError.isInstance(error) ? BUDGET_FLAGS[error.code] : undefined;
    if (raise)
      io.stderr(`To allow more, raise ${raise}.
`);
    // The pointer to --help is for a mistake in the command line, not in the config or the store's directory.
    if (code === EXIT.usage && !(AgentdError.isInstance(error) && (error.code === "E_CONFIG_INVALID" || error.code === "E_STORE_LOCKED")))
      io.stderr(`Run '${["agentd", ...path, "--help"].join(" ")}' for usage.\n`);
    return code;
  }
}

/** One line for a person. Unexpected errors keep their message; the stack only with AGENT_DEBUG=1. */
export function describeError(error: unknown): string {
  if (AgentdError.isInstance(error)) return error.message;
  const name = (error as { name?: string })?.name;
  if (name === "CLIError") return (error as Error).message.replace(ANSI, "");
  if (process.env.AGENT_DEBUG === "1" && error instanceof Error && error.stack) return error.stack;
  return error instanceof Error ? `unexpected error: ${error.message}` : `unexpected error: ${String(error)}`;
}
