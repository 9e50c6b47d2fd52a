/**
 * `--help` text that fits the terminal: citty's own renderer pads every option's description to the longest
 * one (lines of about 180 columns that wrap badly in an 80-column terminal). This one lays out the same
 * parts — the description, USAGE, ARGUMENTS, OPTIONS, COMMANDS, then the examples and notes — and wraps
 * each description under its own column, to the terminal's width (80 when the output is not a terminal).
 */
import type { ArgsDef, CommandDef } from "citty";

/** The layout's bounds: narrower than this reads worse than wrapping; wider lines are hard to follow. */
const MIN_WIDTH = 40;
const MAX_WIDTH = 120;
/** A flag column wider than this puts its description on the next line instead. */
const MAX_FLAG_COLUMN = 30;

type Style = (s: string) => string;
interface Styles {
  bold: Style;
  cyan: Style;
  gray: Style;
}
const plain: Styles = { bold: (s) => s, cyan: (s) => s, gray: (s) => s };
const ansi: Styles = {
  bold: (s) => `\x1b[1m\x1b[4m${s}\x1b[0m`,
  cyan: (s) => `\x1b[36m${s}\x1b[39m`,
  gray: (s) => `\x1b[90m${s}\x1b[39m`,
};

/** The width help is laid out for: the terminal's columns, 80 in a pipe, kept within readable bounds. */
export function helpWidth(columns: number | undefined): number {
  return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, columns && columns > 0 ? columns : 80));
}

/** `words` with a bare flag kept with the word after it (`--operators 'mtls:CN=bob'` stays on one line). */
function glueFlags(words: readonly string[]): string[] {
  const out: string[] = [];
  for (const word of words) {
    const last = out.at(-1);
    if (last !== undefined && /^--?[\w-]+$/.test(last)) out[out.length - 1] = `${last} ${word}`;
    else out.push(word);
  }
  return out;
}

const words = (text: string) => glueFlags(text.split(/\s+/).filter(Boolean));

/** Split `text` into lines of at most `width` characters at spaces (a longer word stands on its own line). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of words(text)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.length ? lines : [""];
}

/** Rows of [label, description] as two columns, each description wrapped under its own column. */
function columns(rows: Array<[string, string]>, width: number, style: Style): string[] {
  const labelWidth = Math.min(MAX_FLAG_COLUMN, Math.max(...rows.map(([l]) => l.length)));
  const descColumn = 2 + labelWidth + 2;
  const out: string[] = [];
  for (const [label, desc] of rows) {
    const wrapped = wrapWords(desc, Math.max(20, width - descColumn));
    const pad = " ".repeat(descColumn);
    if (label.length > labelWidth) out.push(`  ${style(label)}`, ...wrapped.map((l) => pad + l));
    else {
      out.push(`  ${style(label.padEnd(labelWidth))}  ${wrapped[0]}`.trimEnd());
      out.push(...wrapped.slice(1).map((l) => pad + l));
    }
  }
  return out;
}

type Arg = ArgsDef[string] & { name: string; alias?: string | string[]; valueHint?: string; negativeDescription?: string };
const resolve = async <T>(v: T | (() => T | Promise<T>) | Promise<T>): Promise<T> =>
  typeof v === "function" ? (v as () => T | Promise<T>)() : v;
const toArray = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const snake = (s: string) =>
  s
    .replace(/([a-z\d])([A-Z])/g, "$1_$2")
    .replace(/-/g, "_")
    .toLowerCase();

function valueHint(arg: Arg): string {
  if (arg.type === "positional" || arg.type === "boolean" || !arg.type) return arg.valueHint ? `=<${arg.valueHint}>` : "";
  if (arg.type === "enum" && "options" in arg && arg.options?.length) return `=<${arg.options.join("|")}>`;
  return `=<${arg.valueHint ?? snake(arg.name)}>`;
}

function describe(arg: Arg, required: boolean): string {
  const parts = [arg.description ?? ""];
  if (required) parts.push("(Required)");
  if (arg.default !== undefined) parts.push(`(Default: ${String(arg.default)})`);
  return parts.filter(Boolean).join(" ");
}

/** What a command's arguments contribute: the USAGE line's parts and the ARGUMENTS and OPTIONS rows. */
function argumentRows(args: Arg[]) {
  const positional: Array<[string, string]> = [];
  const options: Array<[string, string]> = [];
  const usage: string[] = [];
  for (const arg of args) {
    if (arg.type === "positional") {
      const name = arg.name.toUpperCase();
      const required = arg.required !== false && arg.default === undefined;
      positional.push([name + valueHint(arg), describe(arg, required)]);
      usage.push(required ? `<${name}>` : `[${name}]`);
      continue;
    }
    const required = arg.required === true && arg.default === undefined;
    const aliases = toArray(arg.alias);
    options.push([[...aliases.map((a) => `-${a}`), `--${arg.name}`].join(", ") + valueHint(arg), describe(arg, required)]);
    if (arg.type === "boolean" && (arg.default === true || arg.negativeDescription) && !/^no[-A-Z]/.test(arg.name))
      options.push([[...aliases.map((a) => `--no-${a}`), `--no-${arg.name}`].join(", "), arg.negativeDescription ?? ""]);
    if (required) usage.push(`--${arg.name}${valueHint(arg)}`);
  }
  return { positional, options, usage };
}

/** A shell command's words, quoted parts kept whole (`"a b"` and `'a b'` are one word). */
const shellWords = (command: string) => command.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? [];

/**
 * A command that does not fit, broken between words with a trailing ` \` (so it still pastes into a shell),
 * its continuation lines indented.
 */
function continueLines(command: string, width: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of glueFlags(shellWords(command))) {
    const indent = out.length ? "    " : "  ";
    if (line && indent.length + line.length + 1 + word.length + 2 > width) {
      out.push(`${indent}${line} \\`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  out.push(`${out.length ? "    " : "  "}${line}`);
  return out;
}

/**
 * Example lines: one that does not fit puts its trailing `# comment` on the line above it, and a command
 * still too long continues on the next line.
 */
function exampleLines(examples: readonly string[], width: number): string[] {
  const out: string[] = [];
  for (const e of examples) {
    if (e.length + 2 <= width) {
      out.push(`  ${e}`);
      continue;
    }
    const hash = e.search(/\s{2,}#\s/);
    const command = hash < 0 ? e : e.slice(0, hash).trimEnd();
    const comment = hash < 0 ? "" : e.slice(hash).trim().replace(/^#\s*/, "");
    if (comment && command.length + comment.length + 6 <= width) {
      out.push(`  ${command}  # ${comment}`);
      continue;
    }
    if (comment) out.push(...wrapWords(comment, width - 4).map((l) => `  # ${l}`));
    out.push(...(command.length + 2 <= width ? [`  ${command}`] : continueLines(command, width)));
  }
  return out;
}

/** A note line wrapped to the width, its continuation lines indented as the note itself is (plus two). */
function noteLines(note: string, width: number): string[] {
  const indent = note.match(/^\s*/)![0];
  const [first, ...rest] = wrapWords(note, width - indent.length - 2);
  return [indent + first, ...rest.map((l) => `${indent}  ${l}`)];
}

/** Options of {@link renderHelp}. */
export interface HelpOptions {
  /** Columns to fit (see {@link helpWidth}). */
  width: number;
  color: boolean;
  examples?: readonly string[];
  notes?: readonly string[];
}

/** The help text of `cmd` (a subcommand of `parent`, if given), laid out to `options.width`. */
export async function renderHelp(cmd: CommandDef<any>, parent: CommandDef<any> | undefined, options: HelpOptions): Promise<string> {
  const s = options.color ? ansi : plain;
  const width = options.width;
  const meta = (await resolve(cmd.meta ?? {})) as { name?: string; description?: string; version?: string };
  const parentMeta = (await resolve(parent?.meta ?? {})) as { name?: string; version?: string };
  const defs = ((await resolve(cmd.args ?? {})) ?? {}) as ArgsDef;
  const args = Object.entries(defs).map(([name, def]) => ({ ...def, name }) as Arg);
  const name = `${parentMeta.name ? `${parentMeta.name} ` : ""}${meta.name ?? "agentd"}`;
  const version = meta.version ?? parentMeta.version;
  const { positional, options: optionRows, usage } = argumentRows(args);
  const commands: Array<[string, string]> = [];
  const subs = (await resolve(cmd.subCommands ?? {})) as Record<string, CommandDef<any>>;
  for (const [sub, def] of Object.entries(subs)) {
    const subMeta = (await resolve((await resolve(def))?.meta ?? {})) as { hidden?: boolean; description?: string };
    if (subMeta.hidden) continue;
    commands.push([sub, subMeta.description ?? ""]);
  }
  // The commands on the USAGE line while they fit; else `<command>` (COMMANDS below lists them).
  const listed = commands.map(([c]) => c).join("|");
  if (commands.length) usage.push(`USAGE ${name} [OPTIONS] ${listed}`.length > width ? "<command>" : listed);
  const lines = [...wrapWords(`${meta.description ?? ""} (${name}${version ? ` v${version}` : ""})`, width).map(s.gray), ""];
  const hasOptions = optionRows.length > 0 || positional.length > 0;
  lines.push(`${s.bold("USAGE")} ${s.cyan(`${name}${hasOptions ? " [OPTIONS]" : ""} ${usage.join(" ")}`.trimEnd())}`, "");
  if (positional.length) lines.push(s.bold("ARGUMENTS"), "", ...columns(positional, width, s.cyan), "");
  if (optionRows.length) lines.push(s.bold("OPTIONS"), "", ...columns(optionRows, width, s.cyan), "");
  if (commands.length)
    lines.push(
      s.bold("COMMANDS"),
      "",
      ...columns(commands, width, s.cyan),
      "",
      `Use ${s.cyan(`${name} <command> --help`)} for more information about a command.`,
    );
  let text = `${lines.join("\n")}\n`;
  if (options.examples?.length) text += `\nExamples:\n\n${exampleLines(options.examples, width).join("\n")}\n`;
  if (options.notes?.length) text += `\n${options.notes.flatMap((n) => noteLines(n, width)).join("\n")}\n`;
  return text;
}
