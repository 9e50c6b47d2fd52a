/**
 * OAuth end to end against a real OpenID provider (`oidc-provider` on 127.0.0.1) protecting a real MCP
 * server (the official SDK's server, checking JWT access tokens with `jose`):
 *
 * - `agentd auth login` runs the authorization code grant with PKCE and a loopback redirect; the test plays
 *   the person by following the printed URL with fetch (sign-in and consent pages, cookies kept);
 * - a later `agentd mcp … call` uses the stored token, and refreshes it once it is about to expire;
 * - a headless run without a stored token fails fast: exit 4, naming the server and the command to run;
 * - the client credentials grant, configured with a secret by environment variable;
 * - the token file is 0600 and the tokens never go to anyone but the MCP server they were issued for.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { followLogin, MACHINE_SECRET, type OidcProvider, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { type ProtectedMcp, startProtectedMcp } from "@agentd/test-support/protected-mcp";
import { CLI_MAIN } from "@agentd/test-support/cli-process";

setDefaultTimeout(60_000);

let oidc: OidcProvider;
let mcp: ProtectedMcp;
let dir: string;
let configPath: string;
const storeFile = () => join(dir, "state", "oauth.json");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "agentd-auth-e2e-"));
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
    env: { ...process.env, AGENTD_OAUTH_STORE: storeFile(), NO_COLOR: "1", AGENT_LOG_LEVEL: "", ...env },
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

const stored = () =>
  JSON.parse(readFileSync(storeFile(), "utf8")) as {
    tokens: Record<string, { accessToken: string; refreshToken?: string; expiresAt?: number }>;
  };

describe("OAuth against a real OpenID provider", () => {
  test("a headless run with no stored token fails fast: exit 4, the server named, the login command given", async () => {
    const run = await cli(["mcp", "api", "tools", "--config", configPath], { AGENTD_OAUTH_STORE: join(dir, "empty", "oauth.json") });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("'api'");
    expect(run.stderr).toContain("agentd auth login api");
  });

  test("auth login: authorization code with PKCE through the loopback redirect, then runs use the token", async () => {
    let followed: Promise<Response> | undefined;
    const login = await cli(["auth", "login", "api", "--config", configPath, "--no-browser"], {}, (text) => {
      const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/auth\?\S+)$/m.exec(text)?.[1];
      if (url && !followed) followed = followLogin(url, "alice");
    });
    expect(followed ? "followed" : login.stderr).toBe("followed");
    const page = await followed!;
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("agentd is authorized");
    expect(login.stdout).toContain("logged in to api (scope: mcp:tools)");
    expect(login.code).toBe(0);
    expect(statSync(storeFile()).mode & 0o777).toBe(0o600);
    const tokens = Object.values(stored().tokens)[0]!;
    expect(tokens.refreshToken).toBeDefined();
    expect(login.stderr + login.stdout).not.toContain(tokens.accessToken);

    const call = await cli(["mcp", "api", "call", "whoami", "--config", configPath]);
    expect(call.code).toBe(0);
    const claims = JSON.parse(call.stdout.trim());
    expect(claims).toMatchObject({ sub: "alice", client_id: "cli", scope: "mcp:tools", aud: mcp.url });
    expect(mcp.authorizations).toContain(`Bearer ${tokens.accessToken}`);

    const status = await cli(["auth", "status", "--json"]);
    expect(JSON.parse(status.stdout)).toMatchObject([{ server: "api", resource: mcp.url, issuer: `${oidc.issuer}/`, refreshable: true }]);
    expect(status.stdout).not.toContain(tokens.accessToken);
  });

  test("a token about to expire is refreshed before use; the new one is stored", async () => {
    const doc = stored();
    const key = Object.keys(doc.tokens)[0]!;
    const before = doc.tokens[key]!;
    doc.tokens[key] = { ...before, expiresAt: Date.now() + 5_000 };
    writeFileSync(storeFile(), JSON.stringify(doc), { mode: 0o600 });
    const call = await cli(["mcp", "api", "call", "whoami", "--config", configPath]);
    expect(call.code).toBe(0);
    const after = stored().tokens[key]!;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.expiresAt!).toBeGreaterThan(Date.now() + 60_000);
    expect(mcp.authorizations.at(-1)).toBe(`Bearer ${after.accessToken}`);
  });

  test("auth logout forgets the server's tokens; the next headless run asks for a login again", async () => {
    const out = await cli(["auth", "logout", "api"]);
    expect(out.stdout).toContain("logged out of api");
    expect(Object.keys(stored().tokens)).toEqual([]);
    const run = await cli(["mcp", "api", "tools", "--config", configPath]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("agentd auth login api");
  });

  test("client credentials with a secret from the environment: no person involved", async () => {
    const call = await cli(["mcp", "machine", "call", "whoami", "--config", configPath], { MACHINE_SECRET });
    expect(call.code ? call.stderr : 0).toBe(0);
    expect(JSON.parse(call.stdout.trim())).toMatchObject({ client_id: "machine", scope: "mcp:tools", aud: mcp.url });
    const missing = await cli(["mcp", "machine", "tools", "--config", configPath], { MACHINE_SECRET: "" });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("MACHINE_SECRET");
  });
});
