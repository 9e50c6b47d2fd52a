/**
 * `agentd auth login|status|logout`: OAuth for remote MCP servers that need a person's grant. `login`
 * runs the authorization code grant (PKCE) with a loopback redirect on 127.0.0.1, prints the URL to visit
 * (and tries to open a browser), and stores the tokens in the token file — or in the MCP store of
 * `durability.oauthTokens` when the config names one; runs then use and refresh them.
 */
import { AgentdError, nullLogger, resolveConfig } from "@agentd/sdk";
import { type ConfiguredTokenStore, tokenStoreFromConfig } from "@agentd/sdk/agent";
import { loadOAuth } from "@agentd/sdk/transport";
import { defineCommand } from "citty";
import { spawn } from "node:child_process";
import { EXIT } from "../exit-codes.ts";
import { abortOnSignals } from "../signals.ts";
import { forTerminal } from "../terminal-text.ts";

/** Examples shown by `agentd auth --help`. */
export const authExamples = [
  "agentd auth login github          # authorize agentd for the server 'github' of mcpServers",
  "agentd auth login github --no-browser --port 8765",
  "agentd auth status",
  "agentd auth logout github",
];

/** Best effort: a desktop has a browser opener; a server does not, and the printed URL is enough. */
function openBrowser(url: string): void {
  const cmd = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    const child = spawn(cmd, [url], { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {
    // No opener: the URL is printed.
  }
}

/** The token store the config names (durability.oauthTokens), or undefined for the token file; closed by the caller. */
async function configuredStore(configPath: string | undefined): Promise<ConfiguredTokenStore | undefined> {
  const resolved = await resolveConfig({ configPath });
  return tokenStoreFromConfig(resolved.config, nullLogger);
}

const when = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : "unknown");

const login = defineCommand({
  meta: { name: "login", description: "Authorize agentd for one MCP server (opens the browser, or prints the URL)" },
  args: {
    server: { type: "positional", required: true, description: "A server from mcpServers with an oauth block" },
    config: { type: "string", alias: "c", description: "Config file (default: AGENT_CONFIG, else ./agentd.json)" },
    port: { type: "string", description: "Loopback port of the redirect listener (default: any free port)" },
    browser: { type: "boolean", default: true, description: "Try to open a browser (--no-browser: only print the URL)" },
  },
  async run({ args }) {
    const resolved = await resolveConfig({ configPath: args.config });
    const entry = resolved.config.mcpServers?.[args.server];
    if (!entry) throw new AgentdError("E_USAGE", `unknown MCP server '${args.server}'; see agentd mcp for the configured ones`);
    if (!("url" in entry) || !entry.oauth)
      throw new AgentdError(
        "E_USAGE",
        `MCP server '${args.server}' has no "oauth" block; add "oauth": {} to its mcpServers entry to use OAuth`,
      );
    const port = args.port === undefined ? undefined : Number(args.port);
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536))
      throw new AgentdError("E_USAGE", `--port expects a port number, got '${args.port}'`);
    const signals = abortOnSignals();
    const store = tokenStoreFromConfig(resolved.config, nullLogger);
    try {
      const { loginServer } = await loadOAuth();
      const result = await loginServer({
        store,
        server: args.server,
        url: entry.url,
        config: entry.oauth,
        port,
        signal: signals.signal,
        onUrl: (url) => {
          process.stderr.write(
            `Open this URL to authorize agentd for '${args.server}':\n\n  ${url.href}\n\nWaiting for the browser to come back…\n`,
          );
          if (args.browser !== false) openBrowser(url.href);
        },
      });
      process.stdout.write(
        `logged in to ${args.server}${result.scope ? ` (scope: ${forTerminal(result.scope)})` : ""}; token expires ${when(result.expiresAt)}${result.refreshable ? ", refreshed automatically" : ""}\n`,
      );
      return EXIT.ok;
    } catch (e) {
      const sig = signals.received();
      if (sig) throw new AgentdError("E_ABORTED", `interrupted by ${sig}`, { data: { signal: sig } });
      throw e;
    } finally {
      signals.dispose();
      await store?.close();
    }
  },
});

const status = defineCommand({
  meta: { name: "status", description: "List the stored OAuth logins (never the tokens)" },
  args: {
    json: { type: "boolean", description: "As JSON" },
    config: { type: "string", alias: "c", description: "Config file naming the token store (default: AGENT_CONFIG, else ./agentd.json)" },
  },
  async run({ args }) {
    const { loginStatus } = await loadOAuth();
    const store = await configuredStore(args.config);
    const logins = await loginStatus(store).finally(() => store?.close());
    if (args.json) process.stdout.write(`${JSON.stringify(logins, null, 2)}\n`);
    else if (logins.length === 0) process.stdout.write("no stored logins\n");
    // The issuer, resource and scope are an authorization server's text: escaped for the terminal.
    else
      for (const l of logins)
        process.stdout.write(
          `${[l.server, l.resource, `issuer ${l.issuer}`, `expires ${when(l.expiresAt)}`, ...(l.refreshable ? ["refreshable"] : []), ...(l.scope ? [`scope ${l.scope}`] : [])].map((f) => forTerminal(String(f))).join("\t")}\n`,
        );
    return EXIT.ok;
  },
});

const logout = defineCommand({
  meta: { name: "logout", description: "Forget the stored tokens of one MCP server" },
  args: {
    server: { type: "positional", required: true, description: "The server's name" },
    config: { type: "string", alias: "c", description: "Config file naming the token store (default: AGENT_CONFIG, else ./agentd.json)" },
  },
  async run({ args }) {
    const { logoutServer } = await loadOAuth();
    const store = await configuredStore(args.config);
    const n = await logoutServer(args.server, store).finally(() => store?.close());
    process.stdout.write(n ? `logged out of ${args.server}\n` : `no stored login for ${args.server}\n`);
    return EXIT.ok;
  },
});

/** `agentd auth`: login, status, logout. */
export const authCommand = defineCommand({
  meta: { name: "auth", description: "OAuth logins for remote MCP servers: login, status, logout" },
  subCommands: { login, status, logout },
});
