/**
 * A real `agentd store --http 127.0.0.1:0` process for tests (its URL read from its `store.listening`
 * event), a bearer token file for it, and MCP store clients of it over Streamable HTTP.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpClient } from "@agentd/sdk/mcp";
import { StreamableHttpClientTransport } from "@agentd/sdk/transport";
import { StoreClient } from "@agentd/sdk/store";
import { startAgentd, type AgentdProcess } from "./agentd-process.ts";

/** A running HTTP store. */
export interface StoreProcess {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string;
  /** The bearer token it accepts (undefined: started without auth). */
  token?: string;
  proc: AgentdProcess;
  /** SIGTERM, wait for the exit; remove the temp dir. */
  stop(): Promise<void>;
}

/** A random bearer token (hex, 32 characters). */
export const randomToken = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");

/** Start `agentd store <backendArgs> --http 127.0.0.1:0`, with a token file unless `auth: false`. */
export async function startStoreProcess(
  backendArgs: string[],
  options: { auth?: boolean; env?: Record<string, string> } = {},
): Promise<StoreProcess> {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-http-"));
  const token = options.auth === false ? undefined : randomToken();
  const tokenArgs: string[] = [];
  if (token) {
    writeFileSync(join(dir, "tokens.txt"), `# store tokens\n${token}\n`, { mode: 0o600 });
    tokenArgs.push("--auth-tokens", join(dir, "tokens.txt"));
  }
  const proc = startAgentd(["store", ...backendArgs, "--http", "127.0.0.1:0", ...tokenArgs], { cwd: dir, env: options.env ?? {} });
  const stop = async () => {
    proc.signal("SIGTERM");
    await proc.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [listening] = await proc.waitFor("store.listening");
    return { url: listening?.url as string, ...(token ? { token } : {}), proc, stop };
  } catch (e) {
    await proc.kill();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** A store client over Streamable HTTP (its GET stream open), with `Authorization: Bearer <token>` when a token is given. */
export async function connectHttpStore(url: string, token?: string): Promise<{ store: StoreClient; close(): Promise<void> }> {
  const mcp = new McpClient({ name: "store-http-test", version: "0" });
  const transport = new StreamableHttpClientTransport(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  await mcp.connect(transport);
  // Notifications travel on the GET stream; one sent before it is open reaches nobody.
  const get = await transport.openGetStream();
  if (get !== "open") throw new Error(`the store's GET stream did not open (${get})`);
  return { store: new StoreClient(mcp), close: () => mcp.close() };
}
