/**
 * Clients that are programs, not libraries: `mcp-remote` (the stdio↔HTTP bridge editors use to reach a remote
 * server: run as a child pointed at agentd's URL and driven over stdio by the official SDK client) and the MCP
 * Inspector's CLI mode (one process per method: `--method tools/list`, `tools/call`, `resources/read`). What
 * they print on stderr that reads as an error counts, and so does a non-zero exit.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { REPO_ROOT } from "@agentd/test-support/cli-process";
import type { InteropClient, InteropSession, Target } from "./clients.ts";

const MCP_REMOTE = resolve(REPO_ROOT, "node_modules/mcp-remote/dist/proxy.js");
const INSPECTOR = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");

const textOf = (content: unknown): string =>
  (content as { type: string; text?: string }[]).map((c) => (c.type === "text" ? c.text : "")).join("");

/**
 * The lines of a program's stderr that report trouble. agentd's own telemetry (one JSON record a line, passed
 * through by a client that spawned it) counts at level warn or error only.
 */
const troubleIn = (stderr: string): string[] =>
  stderr.split("\n").filter((line) => {
    const level = telemetryLevel(line);
    return level !== undefined ? level === "warn" || level === "error" : /error|fail|unexpected|exception/i.test(line);
  });

function telemetryLevel(line: string): string | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const record = JSON.parse(line) as { level?: unknown; event?: unknown };
    return typeof record.level === "string" && typeof record.event === "string" ? record.level : undefined;
  } catch {
    return undefined;
  }
}

/** `mcp-remote URL --transport http-only`: only over HTTP (it bridges to a URL); its stderr is read for errors. */
export const mcpRemote: InteropClient = {
  name: "mcp-remote",
  version: "0.15.1",
  httpOnly: true,
  async connect(target: Target, errors: unknown[]) {
    if (target.kind !== "http") throw new Error("mcp-remote bridges to a URL only");
    // Its OAuth state directory, kept out of the home directory.
    const configDir = mkdtempSync(join(tmpdir(), "interop-mcp-remote-"));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_REMOTE, target.url.href, "--transport", "http-only"],
      env: { ...(process.env as Record<string, string>), MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: "interop-mcp-remote", version: "0.15.1" });
    client.onerror = (e) => errors.push(e);
    await client.connect(transport);
    return {
      revision: undefined,
      listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
      run: async (instruction) => textOf((await client.callTool({ name: "agent.run", arguments: { instruction } })).content),
      readStatus: async () =>
        JSON.parse(String(((await client.readResource({ uri: "agent://status" })).contents[0] as { text?: string } | undefined)?.text)),
      async close() {
        await client.close();
        errors.push(...troubleIn(stderr));
        rmSync(configDir, { recursive: true, force: true });
      },
    };
  },
};

/** The MCP Inspector's CLI: each method is one run of `inspector --cli`, its JSON result on stdout. */
export const inspectorCli: InteropClient = {
  name: "@modelcontextprotocol/inspector --cli",
  version: "2.12.0",
  async connect(target: Target, errors: unknown[]): Promise<InteropSession> {
    // Its catalog and secrets live under HOME: a temporary one.
    const home = mkdtempSync(join(tmpdir(), "interop-inspector-"));
    const where =
      target.kind === "http"
        ? ["--transport", "http", target.url.href]
        : [
            "--cwd",
            target.cwd,
            ...Object.entries(target.env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
            "--",
            target.command,
            ...target.args,
          ];
    const call = async (method: string[]): Promise<any> => {
      const proc = Bun.spawn([process.execPath, INSPECTOR, "--cli", ...method, ...where], {
        env: { ...process.env, HOME: home },
        stdout: "pipe",
        stderr: "pipe",
        stdin: "ignore",
      });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      errors.push(...troubleIn(err));
      if (code !== 0) {
        errors.push(`inspector --cli ${method.join(" ")} exited ${code}: ${(out + err).trim().slice(0, 300)}`);
        throw new Error(`inspector --cli exited ${code}`);
      }
      return JSON.parse(out);
    };
    return {
      revision: undefined,
      // Over stdio every call starts its own agentd: the status read after a run comes from a new process.
      oneProcessPerCall: target.kind === "stdio",
      listToolNames: async () => (await call(["--method", "tools/list"])).tools.map((t: { name: string }) => t.name),
      run: async (instruction) =>
        textOf((await call(["--method", "tools/call", "--tool-name", "agent.run", "--tool-arg", `instruction=${instruction}`])).content),
      readStatus: async () => JSON.parse((await call(["--method", "resources/read", "--uri", "agent://status"])).contents[0].text),
      close: async () => rmSync(home, { recursive: true, force: true }),
    };
  },
};
