/**
 * `durability.oauthTokens` in an agent: the store child (a real store process on a directory) is started
 * only when a token is first needed, once for every OAuth server of the agent, and stopped when the agent
 * closes; the token it holds serves a second agent without a token request.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentdConfig } from "../../config/types.generated.ts";
import { MACHINE_SECRET, type OidcProvider, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { type ProtectedMcp, startProtectedMcp } from "@agentd/test-support/protected-mcp";
import { AgentdError } from "../../wire/errors.ts";
import type { Agent } from "../create-agent.ts";
import { createAgentFromConfig } from "../create-agent-from-config.ts";
import { tokenStoreFromConfig } from "./token-store-from-config.ts";
import { nullLogger } from "../../log.ts";

setDefaultTimeout(60_000);

const STORE_ENTRY = resolve(import.meta.dir, "../../store/__fixtures__/store-entry.ts");
let oidc: OidcProvider;
let mcp: ProtectedMcp;
let dir: string;
let agents: Agent[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentd-token-store-"));
  let issuer = "";
  mcp = startProtectedMcp(() => issuer);
  oidc = await startOidcProvider(() => mcp.url);
  issuer = oidc.issuer;
  process.env.TOKEN_STORE_TEST_SECRET = MACHINE_SECRET;
});
afterEach(async () => {
  await Promise.all(agents.map((a) => a.close()));
  agents = [];
});
afterAll(async () => {
  delete process.env.TOKEN_STORE_TEST_SECRET;
  await mcp?.stop();
  await oidc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const storeDir = () => join(dir, "store");
const oauth = { clientId: "machine", clientSecretEnv: "TOKEN_STORE_TEST_SECRET", grant: "client_credentials" as const };
const config = (): AgentdConfig => ({
  mcpServers: { one: { url: mcp.url, oauth }, two: { url: mcp.url, oauth } },
  durability: { oauthTokens: { store: { command: process.execPath, args: [STORE_ENTRY, "--dir", storeDir()] } } },
});
const tokenHits = () => oidc.requests.filter((r) => r.path === "/token").length;

/** PIDs of the store processes on this test's directory. */
const storeProcesses = () =>
  readdirSync("/proc").filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(storeDir());
    } catch {
      return false; // it exited while we looked
    }
  });

/** Resolves with the store processes left once none is left, or after 10 s. */
async function storeProcessesGone(): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  while (storeProcesses().length > 0 && Date.now() < deadline) await Bun.sleep(50);
  return storeProcesses();
}

describe("durability.oauthTokens in an agent", () => {
  test("the store starts on the first token, once for two servers, and stops with the agent", async () => {
    const agent = createAgentFromConfig(config(), { logger: nullLogger });
    agents.push(agent);
    expect(storeProcesses()).toEqual([]);
    const before = tokenHits();
    await agent.connect();
    expect(agent.clients.size).toBe(2);
    expect(storeProcesses()).toHaveLength(1);
    // Two servers (tokens are kept per server name), one client-credentials token each.
    expect(tokenHits()).toBe(before + 2);
    await agent.close();
    expect(await storeProcessesGone()).toEqual([]);

    const again = createAgentFromConfig(config(), { logger: nullLogger });
    agents.push(again);
    await again.connect();
    expect(tokenHits()).toBe(before + 2);
    await again.close();
    expect(await storeProcessesGone()).toEqual([]);
  });

  test("no store anywhere is a configuration error naming the key to set", () => {
    const c: AgentdConfig = { durability: { oauthTokens: {} } };
    const err = (() => {
      try {
        tokenStoreFromConfig(c, nullLogger);
      } catch (e) {
        return e;
      }
    })();
    expect(AgentdError.isInstance(err) && err.code).toBe("E_CONFIG_INVALID");
    expect((err as Error).message).toContain("durability.oauthTokens.store");
    expect(tokenStoreFromConfig({}, nullLogger)).toBeUndefined();
  });
});
