/**
 * Reading a running `agentd serve` over MCP for `agentd status` (and `agentd approvals`): connect (bearer token, an extra CA),
 * read `agent://status` and `agent://runs`, and follow their updates. A failure to connect becomes one
 * line: an unreachable URL is upstream-unavailable (exit 4), rejected credentials a usage error (exit 2).
 */
import { readFile } from "node:fs/promises";
import { AgentdError } from "@agentd/sdk";
import { McpClient } from "@agentd/sdk/mcp";
import { StreamableHttpClientTransport } from "@agentd/sdk/transport";
import type { AgentStatus, RunPage } from "@agentd/sdk/serve";
import type { StatusSnapshot } from "./render-status.ts";

/** Where and how to connect. */
export interface StatusTarget {
  url: URL;
  token?: string;
  /** PEM text of a CA to trust besides the system's. */
  ca?: string;
  /** The command connecting, named in its errors (default `agentd status`). */
  command?: string;
}

/** The MCP endpoint of a URL: a bare origin means its `/mcp`. */
export function endpointOf(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AgentdError(
      "E_USAGE",
      `--url '${value}' is not a URL: give the MCP endpoint of agentd serve, e.g. http://127.0.0.1:7777/mcp`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new AgentdError("E_USAGE", `--url '${value}' must be http:// or https://`);
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/mcp";
  return url;
}

/** A token from a file (its first line) or the value of AGENTD_TOKEN. */
export async function tokenFrom(file: string | undefined, env: string | undefined): Promise<string | undefined> {
  if (!file) return env?.trim() || undefined;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new AgentdError("E_USAGE", `--token-file ${file} cannot be read`);
  }
  const token = text.split("\n")[0]!.trim();
  if (!token) throw new AgentdError("E_USAGE", `--token-file ${file} is empty: put the bearer token on its first line`);
  return token;
}

/** A PEM file of a CA (for a server whose certificate a private CA signed). */
export async function caFrom(file: string | undefined): Promise<string | undefined> {
  if (!file) return undefined;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new AgentdError("E_USAGE", `--tls-ca ${file} cannot be read`);
  }
  if (!text.includes("-----BEGIN ")) throw new AgentdError("E_USAGE", `--tls-ca ${file} is not a PEM file`);
  return text;
}

/** The flags that name a running `agentd serve` and how to reach it, shared by `agentd status` and `agentd approvals`. */
export const serverConnectionArgs = {
  url: { type: "string", description: "The MCP endpoint of agentd serve --http (or AGENTD_URL; a bare origin means its /mcp)" },
  "token-file": { type: "string", description: "A file holding the bearer token (its first line); or AGENTD_TOKEN" },
  "tls-ca": { type: "string", description: "A CA (PEM file) to trust for the server's certificate" },
} as const;

/** Connect as `command` to the server those flags (or AGENTD_URL / AGENTD_TOKEN) name; one clear line when they name none. */
export async function connectServer(
  args: { url?: string; "token-file"?: string; "tls-ca"?: string },
  command: string,
): Promise<{ client: McpClient; url: URL }> {
  const value = args.url ?? process.env.AGENTD_URL;
  if (!value) throw new AgentdError("E_USAGE", `${command} needs the server: --url http://127.0.0.1:7777/mcp (or AGENTD_URL)`);
  const url = endpointOf(value);
  const token = await tokenFrom(args["token-file"], process.env.AGENTD_TOKEN);
  const ca = await caFrom(args["tls-ca"]);
  const client = await connectStatus({ url, token: token || undefined, ca: ca || undefined, command });
  return { client, url };
}

/** Connect to agentd's MCP endpoint; one clear error when it cannot. */
export async function connectStatus(target: StatusTarget): Promise<McpClient> {
  const ca = target.ca;
  const transport = new StreamableHttpClientTransport(target.url, {
    name: target.url.host,
    headers: target.token ? { authorization: `Bearer ${target.token}` } : undefined,
    fetch: ca ? (((input, init) => fetch(input, { ...init, tls: { ca } } as unknown as RequestInit)) as typeof fetch) : undefined,
    reconnect: { maxRetries: 0 },
  });
  const client = new McpClient({ name: "agentd-status", version: "1" });
  try {
    await client.connect(transport, { timeoutMs: 15_000 });
  } catch (e) {
    await client.close().catch(() => {});
    throw connectError(target.url, e, target.command ?? "agentd status");
  }
  return client;
}

function connectError(url: URL, e: unknown, command: string): AgentdError {
  const where = url.href;
  if (AgentdError.isInstance(e) && e.code === "E_UNAUTHORIZED") {
    const status = (e.options.data as { status?: number } | undefined)?.status ?? 401;
    return new AgentdError(
      "E_CONFIG_INVALID",
      status === 403
        ? `${where} refused access with the token given (HTTP 403): ${command} needs a token allowed to read status`
        : `${where} rejected the credentials (HTTP 401): give a valid token with --token-file FILE or AGENTD_TOKEN`,
    );
  }
  const reason = (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 160);
  return new AgentdError(
    "E_UPSTREAM",
    `cannot reach agentd at ${where} (${reason}): is agentd serve --http running there? (--url or AGENTD_URL)`,
  );
}

const json = async <T>(client: McpClient, uri: string): Promise<T> =>
  JSON.parse((await client.readResource(uri)).contents[0]?.text as string) as T;

/** One look: status, runs in flight, runs waiting for a decision, the last `failures` failures. */
export async function snapshot(client: McpClient, url: URL, failures: number): Promise<StatusSnapshot> {
  const [status, running, waiting, failed] = await Promise.all([
    json<StatusSnapshot["status"]>(client, "agent://status"),
    json<RunPage>(client, "agent://runs?status=running&limit=100"),
    json<RunPage>(client, "agent://runs?status=waiting&limit=100"),
    json<RunPage>(client, `agent://runs?status=failed&limit=${failures}`),
  ]);
  return {
    url: url.href,
    status: status as AgentStatus & StatusSnapshot["status"],
    running: running.runs,
    waiting: waiting.runs,
    failures: failed.runs,
    at: new Date().toISOString(),
  };
}
