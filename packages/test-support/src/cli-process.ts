/**
 * Test harness: run the real `agentd` CLI as a child process (bun + main.ts, or the compiled binary) with a
 * config file in a temp dir, and collect exit code, stdout and stderr.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dir, "../../..");
export const CLI_MAIN = resolve(REPO_ROOT, "packages/cli/src/main.ts");
export const RECORDING_SERVER = resolve(import.meta.dir, "recording-server.ts");

/** The outcome of one CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A temp workspace with a config file and a recording MCP server log. */
export class CliWorkspace {
  readonly dir = mkdtempSync(join(tmpdir(), "agentd-cli-"));
  readonly serverLog = join(this.dir, "server.jsonl");

  /** Write agentd.json and return its path. */
  writeConfig(config: Record<string, unknown>): string {
    const path = join(this.dir, "agentd.json");
    writeFileSync(path, JSON.stringify(config, null, 2));
    return path;
  }

  /** The `mcpServers` entry of the recording fixture server. */
  recordingServer(): { command: string; args: string[] } {
    return { command: process.execPath, args: [RECORDING_SERVER, this.serverLog] };
  }

  /** Messages the recording server received. */
  received(): Array<Record<string, any>> {
    if (!existsSync(this.serverLog)) return [];
    return readFileSync(this.serverLog, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  }

  /** Run the CLI to completion. */
  async run(args: string[], options: { env?: Record<string, string | undefined>; binary?: string; stdin?: string } = {}): Promise<CliRun> {
    const cmd = options.binary ? [options.binary, ...args] : [process.execPath, CLI_MAIN, ...args];
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      XDG_STATE_HOME: process.env.XDG_STATE_HOME,
      AGENT_LOG_FORMAT: "json",
      ...options.env,
    }))
      if (v !== undefined) env[k] = v;
    const proc = Bun.spawn(cmd, {
      cwd: this.dir,
      env,
      stdin: options.stdin !== undefined ? new TextEncoder().encode(options.stdin) : "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Telemetry events (stderr JSON lines) of a run. */
export function events(run: CliRun): Array<Record<string, any>> {
  return run.stderr
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
}
