/**
 * OAuth tokens in an MCP store (`durability.oauthTokens`) instead of the token file, end to end: a real
 * OpenID provider (`oidc-provider` on 127.0.0.1), a real MCP server checking its JWTs, and a real
 * `agentd store --dir` child started by each agentd process from the config.
 *
 * - `agentd auth login` writes the tokens through the store, encrypted with the configured key;
 * - `agentd run` in another process uses them without asking the token endpoint again;
 * - `agentd auth status` reads them, `logout` deletes them;
 * - the client credentials grant caches its token in the store across processes;
 * - the token file is never created, no token reaches a log, an unreachable store is one line and exit 4.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { followLogin, MACHINE_SECRET, type OidcProvider, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { type ProtectedMcp, startProtectedMcp } from "@agentd/test-support/protected-mcp";
import { CLI_MAIN } from "@agentd/test-support/cli-process";

setDefaultTimeout(60_000);

let oidc: OidcProvider;
let mcp: ProtectedMcp;
let dir: string;
let storeDir: string;
let configPath: string;
const tokenFile = () => join(dir, "state", "oauth.json");
const KEY = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
/** Requests the provider got at its token endpoint so far. */
const tokenHits = () => oidc.requests.filter((r) => r.path === "/token").length;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentd-auth-store-"));
  storeDir = join(dir, "store");
  let issuer = "";
  mcp = startProtectedMcp(() => issuer);
  oidc = await startOidcProvider(() => mcp.url);
  issuer = oidc.issuer;
  configPath = join(dir, "agentd.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      mcpServers: {
        api: { url: mcp.url, oauth: { clientId: "cli" } },
        machine: { url: mcp.url, oauth: { clientId: "machine", clientSecretEnv: "MACHINE_SECRET", grant: "client_credentials" } },
      },
      durability: {
        oauthTokens: { store: { command: process.execPath, args: [CLI_MAIN, "store", "--dir", storeDir] }, keyEnv: "TOKEN_STORE_KEY" },
      },
    }),
  );
});
afterAll(async () => {
  await mcp?.stop();
  await oidc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the CLI; `onStderr` sees stderr as it arrives (the login URL). */
async function cli(args: string[], env: Record<string, string> = {}, onStderr?: (text: string) => void): Promise<Run> {
  const proc = Bun.spawn([process.execPath, CLI_MAIN, ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, AGENTD_OAUTH_STORE: tokenFile(), TOKEN_STORE_KEY: KEY, NO_COLOR: "1", AGENT_LOG_LEVEL: "", ...env },
  });
  try {
    let stderr = "";
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of proc.stderr) {
        stderr += decoder.decode(chunk, { stream: true });
        onStderr?.(stderr);
      }
    })();
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    await reading;
    return { code, stdout, stderr };
  } finally {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}

/** Every file the store wrote, as text. */
function storeText(): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (statSync(join(d, e.name)).size < 1_000_000) out.push(readFileSync(join(d, e.name), "utf8"));
    }
  };
  if (existsSync(storeDir)) walk(storeDir);
  return out.join("\n");
}

/** Resolves once no process runs the store of this test (each agentd closes its store child as it exits). */
async function storeChildrenGone(): Promise<number> {
  const running = () =>
    readdirSync("/proc").filter((pid) => {
      try {
        return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(storeDir);
      } catch {
        return false; // it exited while we looked
      }
    }).length;
  const deadline = Date.now() + 10_000;
  while (running() > 0 && Date.now() < deadline) await Bun.sleep(50);
  return running();
}

/** The bearer tokens the MCP server has seen (the access tokens issued). */
const bearers = () => mcp.authorizations.filter((a) => a.startsWith("Bearer ")).map((a) => a.slice(7));

describe("OAuth tokens in an MCP store", () => {
  let gateway: FakeGateway | undefined;
  afterAll(async () => {
    await gateway?.close();
  });

  test("auth login writes the tokens through the store; agentd run in another process uses them, no token request", async () => {
    let followed: Promise<Response> | undefined;
    const login = await cli(["auth", "login", "api", "--config", configPath, "--no-browser"], {}, (text) => {
      const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(text)?.[1];
      if (url && !followed) followed = followLogin(url, "alice");
    });
    expect(followed ? "followed" : login.stderr).toBe("followed");
    expect((await followed!).status).toBe(200);
    expect(login.code ? login.stderr : 0).toBe(0);
    expect(login.stdout).toContain("logged in to api (scope: mcp:tools)");
    expect(storeText()).toContain('"sealed"');
    expect(existsSync(tokenFile())).toBe(false);

    const hits = tokenHits();
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) => ({ toolCalls: [{ name: req.tools.find((t) => t.includes("api") && t.endsWith("whoami"))!, arguments: {} }] }),
        (req) => ({ text: `server says: ${req.lastToolResult}` }),
      ],
    });
    // Only the logged-in server: the machine one would fetch a token of its own.
    const runConfig = join(dir, "run.json");
    const config = JSON.parse(readFileSync(configPath, "utf8"));
    delete config.mcpServers.machine;
    writeFileSync(runConfig, JSON.stringify(config));
    const run = await cli(["run", "--config", runConfig, "Who am I?"], {
      AGENT_INTELLIGENCE: gateway.url,
      AGENT_DIALECT: "openai",
      AGENT_MODEL: "test-model",
    });
    expect(run.code ? run.stderr : 0).toBe(0);
    expect(run.stdout).toContain('"sub":"alice"');
    expect(tokenHits()).toBe(hits);
    const [token] = bearers();
    expect(token).toBeDefined();
    // Encrypted before it left the process; never printed.
    expect(storeText()).not.toContain(token!);
    expect(login.stdout + login.stderr + run.stdout + run.stderr).not.toContain(token!);
    expect(existsSync(tokenFile())).toBe(false);
    expect(await storeChildrenGone()).toBe(0);
  });

  test("auth status reads the store; logout deletes the tokens from it", async () => {
    const status = await cli(["auth", "status", "--json", "--config", configPath]);
    expect(status.code ? status.stderr : 0).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject([{ server: "api", resource: mcp.url, issuer: `${oidc.issuer}/`, refreshable: true }]);
    // Without the config: the (empty) token file, not the store.
    expect((await cli(["auth", "status"])).stdout).toBe("no stored logins\n");

    const wrongKey = await cli(["auth", "status", "--config", configPath], { TOKEN_STORE_KEY: "another key" });
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toContain("wrong AGENTD_OAUTH_STORE_KEY");

    const out = await cli(["auth", "logout", "api", "--config", configPath]);
    expect(out.stdout).toContain("logged out of api");
    expect((await cli(["auth", "status", "--config", configPath])).stdout).toBe("no stored logins\n");
    const run = await cli(["mcp", "api", "tools", "--config", configPath]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("agentd auth login api");
    expect(existsSync(tokenFile())).toBe(false);
  });

  test("client credentials: the token is cached in the store, a second process asks the token endpoint nothing", async () => {
    const before = tokenHits();
    const first = await cli(["mcp", "machine", "call", "whoami", "--config", configPath], { MACHINE_SECRET });
    expect(first.code ? first.stderr : 0).toBe(0);
    expect(JSON.parse(first.stdout.trim())).toMatchObject({ client_id: "machine", aud: mcp.url });
    expect(tokenHits()).toBe(before + 1);
    const second = await cli(["mcp", "machine", "call", "whoami", "--config", configPath], { MACHINE_SECRET });
    expect(second.code ? second.stderr : 0).toBe(0);
    expect(tokenHits()).toBe(before + 1);
    expect(existsSync(tokenFile())).toBe(false);
    expect(await storeChildrenGone()).toBe(0);
  });

  test("an unreachable store: one line naming it, exit 4; a store-less oauthTokens block: exit 2", async () => {
    const bad = join(dir, "bad.json");
    const config = JSON.parse(readFileSync(configPath, "utf8"));
    config.durability.oauthTokens.store = { command: join(dir, "no-such-store") };
    writeFileSync(bad, JSON.stringify(config));
    const status = await cli(["auth", "status", "--config", bad]);
    expect(status.code).toBe(4);
    expect(status.stderr.trim().split("\n")).toHaveLength(1);
    expect(status.stderr).toContain("the OAuth token store (durability.oauthTokens.store) is unavailable");
    const call = await cli(["mcp", "machine", "tools", "--config", bad], { MACHINE_SECRET });
    expect(call.code).toBe(4);
    expect(call.stderr).toContain("the OAuth token store (durability.oauthTokens.store) is unavailable");

    config.durability.oauthTokens = {};
    writeFileSync(bad, JSON.stringify(config));
    const missing = await cli(["auth", "status", "--config", bad]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("durability.oauthTokens needs a store");
  });
});
