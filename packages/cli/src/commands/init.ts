/**
 * `agentd init`: write a starter `agentd.json` — interactively (a few questions), or from flags with
 * `--yes` for scripts and CI. Never overwrites without `--force`; validates with the SDK's config schema
 * before writing; stores the NAME of the API-key variable, never a key.
 */
import { AgentdError } from "@agentd/sdk";
import { confirm, isCancel, note, outro } from "@clack/prompts";
import { defineCommand } from "citty";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { EXIT } from "../exit-codes.ts";
import { checkModelAnswers } from "./init-check.ts";
import {
  configFromAnswers,
  defaultsFor,
  schemaRefFor,
  DIALECTS,
  guessDialect,
  parseServerFlag,
  type Dialect,
  type InitAnswers,
} from "./init-config.ts";
import { askAnswers, type InitSeed } from "./init-prompts.ts";
import { repeatedFlag } from "./mcp-args.ts";

export const initExamples = [
  "agentd init                       # a few questions, then ./agentd.json",
  "agentd init --yes                 # no questions: local OpenAI-compatible endpoint (Ollama), model qwen3",
  "agentd init --yes --intelligence https://api.openai.com/v1 --model gpt-4.1-mini --api-key-env OPENAI_API_KEY",
  "agentd init --yes --dialect anthropic --model claude-sonnet-4-5 --server 'fs=npx -y @modelcontextprotocol/server-filesystem /data'",
  "agentd init --yes --server remote=https://tools.example/mcp --config ops/agentd.json --force",
  "agentd init --yes --model qwen3 --check          # then one short request: does the model answer?",
];

/** The flags as prompt defaults (interactive) or as the answers (`--yes`). */
function seedFrom(args: Record<string, unknown>, rawArgs: string[]): InitSeed & { keyEnvGiven: boolean } {
  const s = (k: string) => (typeof args[k] === "string" ? (args[k] as string) : undefined);
  const dialect = s("dialect");
  if (dialect !== undefined && !(DIALECTS as readonly string[]).includes(dialect))
    throw new AgentdError("E_USAGE", `--dialect must be one of ${DIALECTS.join(", ")}, got '${dialect}'`);
  const intelligence = s("intelligence");
  const model = s("model");
  const keyEnv = s("api-key-env");
  return {
    dialect: (dialect || undefined) as Dialect | undefined,
    intelligence: intelligence || undefined,
    model: model || undefined,
    apiKeyEnv: keyEnv || undefined,
    keyEnvGiven: keyEnv !== undefined,
    servers: repeatedFlag(rawArgs, "server").map(parseServerFlag),
  };
}

/** `--yes`: the flags, and the defaults for anything they leave out. */
function answersFromFlags(seed: ReturnType<typeof seedFrom>): InitAnswers {
  const dialect = seed.dialect ?? guessDialect(seed.intelligence);
  const intelligence = seed.intelligence ?? defaultsFor(dialect).intelligence;
  const d = defaultsFor(dialect, intelligence);
  const model = seed.model ?? d.model;
  // `--api-key-env ""` says: no key.
  const apiKeyEnv = seed.keyEnvGiven ? seed.apiKeyEnv : d.apiKeyEnv;
  return {
    dialect,
    intelligence: intelligence || undefined,
    model: model || undefined,
    apiKeyEnv: apiKeyEnv || undefined,
    servers: seed.servers,
  };
}

/** What to do next, as shell lines. */
function nextSteps(answers: InitAnswers, path: string): string[] {
  const shown = relative(process.cwd(), path) || path;
  const flag = shown === "agentd.json" ? "" : ` --config ${shown}`;
  return [
    ...(answers.apiKeyEnv ? [`export ${answers.apiKeyEnv}=…          # the key stays in the environment`] : []),
    ...answers.servers.slice(0, 1).map((s) => `agentd mcp ${s.name} tools${flag}`),
    `agentd run${flag} "Say hello"`,
  ];
}

/** `--config ops/agentd.json` in a fresh checkout: make the folder, like `mkdir -p`. */
async function makeFolder(dir: string, shown: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const what =
      code === "EEXIST" || code === "ENOTDIR"
        ? "a file is in the way of its folder"
        : `cannot create its folder (${code ?? (e as Error).message})`;
    throw new AgentdError("E_USAGE", `cannot write ${shown}: ${what}`);
  }
}

/** Asked in a terminal after writing; a cancel is a no. */
async function askToCheck(): Promise<boolean> {
  const yes = await confirm({ message: "Send the model one short request to check that it answers?", initialValue: true });
  return !isCancel(yes) && yes;
}

/**
 * The model check's outcome, one line; the file stays written either way. A failure is thrown (the CLI
 * prints it and exits with the run's code for it: 4 for an endpoint that refused, 2 for a setting).
 */
async function reportCheck(path: string, shown: string): Promise<number> {
  process.stderr.write("agentd: checking that the model answers…\n");
  try {
    const reply = await checkModelAnswers(path);
    process.stdout.write(`The model answered: ${reply}\n`);
    return EXIT.ok;
  } catch (e) {
    process.stderr.write(
      `agentd: ${shown} was written; fix its model settings (or the key's variable), then run 'agentd run "Say hello"'\n`,
    );
    if (!AgentdError.isInstance(e)) throw e;
    throw new AgentdError(e.code, `the model did not answer: ${e.message}`, { cause: e, data: e.options.data });
  }
}

export const initCommand = defineCommand({
  meta: { name: "init", description: "Write a starter agentd.json: interactively, or from flags with --yes." },
  args: {
    yes: { type: "boolean", alias: "y", description: "Ask nothing: use the flags and the defaults (for scripts and CI)" },
    force: { type: "boolean", description: "Overwrite an existing file" },
    config: { type: "string", alias: "c", description: "Where to write (default ./agentd.json)" },
    intelligence: { type: "string", description: "Model endpoint URL (default for openai: http://127.0.0.1:11434/v1)" },
    dialect: { type: "string", description: "openai (default), responses, anthropic or gemini" },
    model: { type: "string", alias: "m", description: "Model name (default qwen3 for a local endpoint; required otherwise)" },
    "api-key-env": { type: "string", description: "NAME of the environment variable holding the API key ('' for none)" },
    server: { type: "string", description: "An MCP server, NAME=COMMAND LINE or NAME=URL; repeatable" },
    check: {
      type: "boolean",
      description:
        "After writing, send the model one short request to check that it answers (asked in a terminal; with --yes only when given)",
    },
  },
  async run({ args, rawArgs }) {
    const path = resolve(args.config ?? "agentd.json");
    const shown = relative(process.cwd(), path) || path;
    // Refuse before asking anything: answering questions only to be refused would waste the person's time.
    if (existsSync(path) && !args.force) throw new AgentdError("E_USAGE", `${shown} already exists: pass --force to overwrite it`);
    const seed = seedFrom(args, rawArgs);
    const interactive = args.yes !== true;
    if (interactive && !process.stdin.isTTY)
      throw new AgentdError(
        "E_USAGE",
        "init asks questions but stdin is not a terminal: run 'agentd init --yes' with flags (--intelligence, --dialect, --model, --api-key-env, --server)",
      );
    const answers = interactive ? await askAnswers(seed) : answersFromFlags(seed);
    if (!answers) throw new AgentdError("E_ABORTED", "init cancelled: nothing was written", { data: { signal: "SIGINT" } });
    const schemaRef = schemaRefFor(path);
    const config = configFromAnswers(answers, shown, schemaRef);
    await makeFolder(dirname(path), shown);
    try {
      await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { flag: args.force ? "w" : "wx" });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EEXIST") throw new AgentdError("E_USAGE", `${shown} already exists: pass --force to overwrite it`);
      throw new AgentdError("E_USAGE", `cannot write ${shown} (${code ?? (e as Error).message})`);
    }
    const steps = nextSteps(answers, path);
    if (interactive) {
      note(steps.join("\n"), "Next");
      outro(`Wrote ${shown}`);
    } else process.stdout.write(`Wrote ${shown}\nNext:\n${steps.map((l) => `  ${l}`).join("\n")}\n`);
    if (!schemaRef)
      process.stderr.write(
        'agentd: note: no $schema written (no @agentd/cli schema file on disk here): \'npm i -D @agentd/cli\' in this project, then add "$schema": "./node_modules/@agentd/cli/schema/agentd-config.v1.json" for editor completion\n',
      );
    const envConfig = process.env.AGENT_CONFIG;
    if (envConfig && resolve(envConfig) !== path)
      process.stderr.write(`agentd: note: AGENT_CONFIG=${envConfig} is set, so 'agentd run' reads that file, not ${shown}\n`);
    const wantsCheck = rawArgs.includes("--check") ? true : rawArgs.includes("--no-check") || !interactive ? false : await askToCheck();
    return wantsCheck ? reportCheck(path, shown) : EXIT.ok;
  },
});
