/**
 * `fakeServerCommand(spec)`: the command line that runs a fake MCP server as a real stdio child — for an
 * agent's `mcpServers` config or a `StdioChildTransport` — plus the handles a test needs around it: the
 * control channel (change resources while the agent is subscribed) and the record file.
 *
 * ```ts
 * const fake = fakeServerCommand({ resources: [{ uri: "file:///inbox.md", text: "empty" }] });
 * const config = { mcpServers: { inbox: fake.config } };
 * // … once the agent has connected:
 * await fake.control.setResource("file:///inbox.md", "one new mail");
 * fake.recordedRequests(); // every request the child received, even after it crashed
 * fake.dispose();
 * ```
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeServerControl } from "./control-client.ts";
import { checkSpec } from "./spec-check.ts";
import type { FakeMcpServerSpec, RecordedRequest } from "./types.ts";

/** Whether this module runs from its TypeScript source (Bun) rather than from the built `dist/index.js`. */
const FROM_SOURCE = import.meta.url.endsWith(".ts");

/** The bin that serves a JSON spec on stdio: the source beside this folder, or the built script in `dist/bin/`. */
export const FAKE_MCP_SERVER_BIN = fileURLToPath(
  new URL(FROM_SOURCE ? "../bin/fake-mcp-server.ts" : "./bin/fake-mcp-server.js", import.meta.url),
);

/** Options of {@link fakeServerCommand}. */
export interface FakeServerCommandOptions {
  /** Folder for the spec, socket and record (default: a fresh temp folder, removed by `dispose`). */
  dir?: string;
}

/** A fake server's command line and its handles. */
export interface FakeServerCommand {
  /** The runtime executable (this process's Node or Bun; Bun for the TypeScript source). */
  command: string;
  /** The bin, the spec file and the control/record paths. */
  args: string[];
  /** `{ command, args }` alone, ready for an `mcpServers` entry. */
  config: { command: string; args: string[] };
  /** The control channel of the running child (ready once it answered `initialize`). */
  control: FakeServerControl;
  dir: string;
  specPath: string;
  recordPath: string;
  /** Every request any child started from this command received, read from the record file. */
  recordedRequests(): Array<RecordedRequest & { pid: number }>;
  /** Remove the folder (spec, socket, record). Stop the child first. */
  dispose(): void;
}

/** Write `spec` (JSON-only: no code hooks) to a temp file and return the command that serves it. */
export function fakeServerCommand(spec: FakeMcpServerSpec, options: FakeServerCommandOptions = {}): FakeServerCommand {
  checkSpec(spec, { code: false });
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "agentd-fake-mcp-"));
  const specPath = join(dir, "spec.json");
  const socketPath = join(dir, "control.sock");
  const recordPath = join(dir, "requests.jsonl");
  writeFileSync(specPath, JSON.stringify(spec, null, 2));
  writeFileSync(recordPath, "");
  // The built script runs under whichever runtime runs us; the TypeScript source needs Bun.
  const command = process.versions.bun || !FROM_SOURCE ? process.execPath : "bun";
  const args = [FAKE_MCP_SERVER_BIN, specPath, "--control", socketPath, "--record", recordPath];
  return {
    command,
    args,
    config: { command, args: [...args] },
    control: new FakeServerControl(socketPath),
    dir,
    specPath,
    recordPath,
    recordedRequests: () =>
      readFileSync(recordPath, "utf8")
        .split("\n")
        // A line still being written has no newline yet: only whole lines are records.
        .slice(0, -1)
        .map((line) => JSON.parse(line) as RecordedRequest & { pid: number }),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
