/**
 * `agentd serve`: wait for inbound work. Serves the self-MCP surface (agent.run, agent://status,
 * agent://runs/{runId}) on stdio or on Streamable HTTP(S) with /healthz and /readyz.
 */
import {
  AgentdError,
  bearerTokenEntries,
  createLogger,
  createRunTriggerTags,
  createSelfMcpServer,
  registerSubagentSurface,
  createStreamableHttpServer,
  isLoopbackHost,
  type LogRecord,
  parseDuration,
  resolveConfig,
  setLongTimeout,
  StdioServerTransport,
} from "@agentd/sdk";
import { readFile } from "node:fs/promises";
import { defineCommand } from "citty";
import { agentFromConfig, modelFromConfig } from "../build-agent.ts";
import { EXIT } from "../exit-codes.ts";
import { createServeTriggers } from "../modes/serve-triggers.ts";
import { stderrLogger } from "../telemetry.ts";
import { VERSION } from "./version.ts";
import { configArgs, overridesFrom } from "./shared-args.ts";

export const serveExamples = [
  "agentd serve --stdio                                  # an MCP server on stdin/stdout",
  "agentd serve --http 127.0.0.1:7777                    # Streamable HTTP on loopback (development)",
  "agentd serve --http 0.0.0.0:443 --tls-cert c.pem --tls-key k.pem --auth-tokens tokens.txt",
  "agentd serve --http 127.0.0.1:7777 --notifications    # D9: logging + progress notifications",
];

/** Parse HOST:PORT (IPv6 in brackets). */
export function parseListen(value: string): { hostname: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new AgentdError("E_USAGE", `--http expects HOST:PORT such as 127.0.0.1:7777, got '${value}'`);
  return { hostname: (m[1] ?? m[2]) as string, port };
}

/** Bearer tokens: one a line in a file (blank lines and # comments ignored), or comma-separated in an env var. */
export async function loadTokens(file: string | undefined, envName: string | undefined): Promise<string[]> {
  const tokens: string[] = [];
  if (file) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      throw new AgentdError("E_CONFIG_INVALID", `auth tokens file ${file} cannot be read`);
    }
    tokens.push(...text.split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#")));
    if (tokens.length === 0) throw new AgentdError("E_CONFIG_INVALID", `auth tokens file ${file} holds no token`);
  }
  if (envName) {
    const v = process.env[envName];
    if (!v) throw new AgentdError("E_CONFIG_INVALID", `environment variable ${envName} (auth tokens) is not set`);
    tokens.push(...v.split(",").map((t) => t.trim()).filter(Boolean));
  }
  return tokens;
}

async function readPem(path: string | undefined, flag: string): Promise<string | undefined> {
  if (!path) return undefined;
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new AgentdError("E_CONFIG_INVALID", `${flag}: cannot read ${path}`);
  }
  // Never echo the contents: a wrong file may well be key material.
  if (!text.includes("-----BEGIN ")) throw new AgentdError("E_CONFIG_INVALID", `${flag}: ${path} is not a PEM file`);
  return text;
}

export const serveCommand = defineCommand({
  meta: { name: "serve", description: "Serve agentd as an MCP server (stdio or Streamable HTTP) and wait for work." },
  args: {
    stdio: { type: "boolean", description: "Serve MCP on stdin/stdout (the default when --http is absent)" },
    http: { type: "string", description: "Serve Streamable HTTP on HOST:PORT (loopback unless TLS and auth are set)" },
    "tls-cert": { type: "string", description: "TLS certificate (PEM file)" },
    "tls-key": { type: "string", description: "TLS private key (PEM file)" },
    "tls-ca": { type: "string", description: "CA (PEM file) that client certificates must chain to: enables mTLS" },
    "auth-tokens": { type: "string", description: "File of bearer tokens, one a line (or AGENT_AUTH_TOKENS, comma-separated)" },
    "operator-tokens": { type: "string", description: "File of bearer tokens, one a line, whose holders are operators (see every principal's runs)" },
    operators: { type: "string", description: "Principal ids with the operator role, comma-separated (e.g. local, mtls:CN=alice,O=ops)" },
    "public-url": { type: "string", description: "The endpoint URL clients reach (e.g. https://agentd.example.com/mcp), advertised in RFC 9728 metadata" },
    "json-response": { type: "boolean", description: "Answer POSTs with one JSON body instead of an SSE stream" },
    notifications: { type: "boolean", description: "D9: declare logging; emit notifications/message and progress" },
    "allowed-origin": { type: "string", description: "Origins allowed instead of the loopback ones (comma-separated scheme://host[:port])" },
    "allowed-host": { type: "string", description: "Host header values allowed instead of the bound address and loopback names (comma-separated host or host:port)" },
    grace: { type: "string", description: "On SIGTERM, let in-flight runs finish this long (default 30s)" },
    ...configArgs,
  },
  async run({ args, rawArgs }) {
    const resolved = await resolveConfig({ ...(args.config ? { configPath: args.config } : {}), overrides: overridesFrom(args, rawArgs) });
    const config = resolved.config;
    // Checked up front: a bad --grace must not surface only at shutdown.
    const grace = args.grace ? parseGrace(args.grace) : 30_000;
    if (args.stdio && args.http) throw new AgentdError("E_USAGE", "--stdio and --http exclude each other: pick one");
    // --http, else the config file's serve.http (unless --stdio asks for stdio).
    const listen = args.http ?? (args.stdio ? undefined : config.serve?.http);
    const d9 = args.notifications === true || config.capabilities?.serverNotifications === true;
    const mirror: { fn?: (r: LogRecord) => void } = {};
    const base = stderrLogger();
    const logger = createLogger((r) => {
      base.log(r.level, r.event, Object.fromEntries(Object.entries(r).filter(([k]) => k !== "ts" && k !== "level" && k !== "event")));
      mirror.fn?.(r);
    }, { level: "debug" });
    const modelConfigured = Boolean(config.model?.intelligence) || (config.model?.dialect !== undefined && config.model.dialect !== "openai");
    let agent: ReturnType<typeof agentFromConfig> | undefined;
    let draining = false;
    const runner = {
      run: (input: string, o: Parameters<ReturnType<typeof agentFromConfig>["run"]>[1]) => {
        if (draining) throw new AgentdError("E_UPSTREAM", "agentd is shutting down; not taking new runs");
        if (!agent) throw new AgentdError("E_CONFIG_INVALID", "no model configured: set AGENT_INTELLIGENCE or model.intelligence");
        return agent.run(input, o);
      },
    };
    // ── triggers (src/modes/serve-triggers.ts): the configured triggers run beside the self-MCP; the agent
    // logs through the trigger tags so a triggered run's records carry `trigger`. ──
    const triggerTags = createRunTriggerTags(logger);
    if (modelConfigured) agent = agentFromConfig(config, modelFromConfig(config, resolved, logger), triggerTags.logger);
    const triggers = createServeTriggers({ config, agent, tags: triggerTags });
    // ── end triggers ──
    const self = createSelfMcpServer({
      runner,
      version: VERSION,
      capabilities: { serverNotifications: d9 },
      operators: [...(args.operators?.split(",").map((s) => s.trim()).filter(Boolean) ?? []), ...(config.serve?.operators ?? [])],
      ...(config.serve?.runHistory ? { runHistory: config.serve.runHistory } : {}),
      ...(triggers ? { triggers: () => triggers.status() } : {}),
      // Subagents (when the config has a `subagents` block): subagent.* tools and agent://subagent/{id}/result.
      ...(agent?.supervisor ? { extend: (server) => registerSubagentSurface(server, agent!.supervisor!) } : {}),
    });
    if (d9) mirror.fn = (r) => self.mirrorLog(r);

    const stop = new Promise<NodeJS.Signals>((resolve) => {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
    });
    let closeServer: () => Promise<void>;
    let ended: Promise<unknown>;
    if (listen) {
      const { hostname, port } = parseListen(listen);
      const cfgServe = config.serve;
      const tokens = await loadTokens(args["auth-tokens"] ?? cfgServe?.auth?.tokensFile, cfgServe?.auth?.tokensEnv ?? (process.env.AGENT_AUTH_TOKENS ? "AGENT_AUTH_TOKENS" : undefined));
      const operatorTokens = await loadTokens(args["operator-tokens"] ?? cfgServe?.auth?.operatorTokensFile, undefined);
      tokens.push(...operatorTokens);
      const cert = await readPem(args["tls-cert"] ?? cfgServe?.tls?.cert, "--tls-cert");
      const key = await readPem(args["tls-key"] ?? cfgServe?.tls?.key, "--tls-key");
      const ca = await readPem(args["tls-ca"] ?? cfgServe?.tls?.ca, "--tls-ca");
      if ((cert && !key) || (key && !cert)) throw new AgentdError("E_USAGE", "--tls-cert and --tls-key go together");
      const mtls = ca !== undefined || cfgServe?.auth?.mtls === true;
      // The transport refuses this too; here the line names the CLI's flags.
      const jwt = cfgServe?.auth?.jwt ?? [];
      if (!isLoopbackHost(hostname) && !(cert && (tokens.length > 0 || mtls || jwt.length > 0)))
        throw new AgentdError(
          "E_CONFIG_INVALID",
          `refusing to serve on ${hostname} without TLS and auth: add --tls-cert and --tls-key, and --auth-tokens FILE or --tls-ca (mTLS); or bind 127.0.0.1`,
        );
      const hosts = args["allowed-host"]?.split(",").map((s) => s.trim()).filter(Boolean) ?? [];
      const origins = [...(args["allowed-origin"]?.split(",").map((s) => s.trim()).filter(Boolean) ?? []), ...(cfgServe?.allowedOrigins ?? [])];
      const ready = async () => {
        if (draining) return new Response("draining\n", { status: 503 });
        if (!agent) return new Response("model not configured\n", { status: 503 });
        try {
          await agent.connect();
        } catch (e) {
          return new Response(`not ready: ${(e as Error).message}\n`, { status: 503 });
        }
        return new Response("ready\n", { status: 200 });
      };
      const server = await listenOrExplain(`${hostname}:${port}`, () => createStreamableHttpServer({
        hostname,
        port,
        ...(cert && key ? { tls: { cert, key, ...(ca ? { ca, requireClientCert: true } : {}) } } : {}),
        ...(tokens.length || mtls || jwt.length
          ? { auth: { ...(tokens.length ? { bearerTokens: bearerTokenEntries(tokens, operatorTokens) } : {}), ...(mtls ? { mtls: true } : {}), ...(jwt.length ? { jwt } : {}) } }
          : {}),
        ...(args["public-url"] ?? cfgServe?.publicUrl ? { publicUrl: (args["public-url"] ?? cfgServe?.publicUrl)! } : {}),
        ...(cfgServe?.limits ? { limits: cfgServe.limits } : {}),
        ...(origins.length ? { allowedOrigins: origins } : {}),
        ...(hosts.length ? { allowedHosts: hosts } : {}),
        ...(args["json-response"] ? { responseMode: "json" as const } : {}),
        onsession: async (transport) => {
          await self.server.connect(transport);
        },
        routes: { "/healthz": () => new Response("ok\n"), "/readyz": ready },
        logger,
      }));
      logger.info("serve.listening", { url: server.url.href, tls: Boolean(cert), authMethod: tokens.length && mtls ? "bearer+mtls" : tokens.length ? "bearer" : mtls ? "mtls" : "none" });
      closeServer = () => server.close();
      ended = new Promise(() => {});
    } else {
      const transport = new StdioServerTransport();
      const session = await self.server.connect(transport);
      logger.info("serve.stdio", {});
      closeServer = () => transport.close();
      ended = new Promise<void>((resolve) => (session.closed ? resolve() : session.events.on("close", () => resolve())));
    }

    // ── triggers: start once serving (connect, subscribe + read, arm clocks) ──
    await triggers?.start(self);
    // ── end triggers ──
    const outcome = await Promise.race([stop, ended.then(() => undefined)]);
    // Drain: stop taking work, let in-flight runs finish up to the grace period, then cancel them.
    draining = true;
    // ── triggers: stop taking events; their in-flight runs drain with the rest (registry), cancelled after the grace ──
    const triggersStopped = triggers?.stop(grace);
    // ── end triggers ──
    logger.info("serve.draining", { signal: outcome ?? "stdin-closed", running: self.registry.status().running.length, graceMs: grace });
    const deadline = Date.now() + grace;
    while (self.registry.status().state === "running" && Date.now() < deadline) await waitForChange(self.registry, deadline - Date.now());
    await answersSent(self.server, deadline);
    await triggersStopped; // ── triggers ──
    await closeServer();
    await agent?.close();
    logger.info("serve.stopped", { signal: outcome ?? "stdin-closed" });
    // citty drops a subcommand's return value: a signal exit (130/143) has to travel as the typed error.
    if (outcome) throw new AgentdError("E_ABORTED", `interrupted by ${outcome} after draining`, { data: { signal: outcome } });
    return EXIT.ok;
  },
});

function parseGrace(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new AgentdError("E_USAGE", `--grace expects a duration such as 30s or 1m30s, got '${value}'`);
  return ms;
}

/**
 * Start listening; a failure the user can fix (port in use, a certificate or key the TLS library rejects)
 * becomes one line naming what to change instead of an "unexpected error".
 */
async function listenOrExplain<T>(address: string, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (e) {
    if (AgentdError.isInstance(e)) throw e;
    const message = e instanceof Error ? e.message : String(e);
    if (/in use|EADDRINUSE/i.test(message))
      throw new AgentdError("E_CONFIG_INVALID", `--http ${address}: the address is already in use; pick another port (or 0 for any free one)`);
    if (/PEM|certificate|private key|SSL|TLS|asn1|x509/i.test(message))
      throw new AgentdError("E_CONFIG_INVALID", `--tls-cert/--tls-key: the TLS library rejected the certificate or key (${message.slice(0, 120)}); check that --tls-cert is the certificate and --tls-key its private key`);
    if (/EACCES|permission/i.test(message))
      throw new AgentdError("E_CONFIG_INVALID", `--http ${address}: not permitted to listen there (ports below 1024 need privileges)`);
    throw e;
  }
}

/**
 * Wait until every inbound request has been answered (a run recorded as finished still has its tools/call
 * response to send): closing the server first would end its stream without the answer.
 */
async function answersSent(server: ReturnType<typeof createSelfMcpServer>["server"], deadline: number): Promise<void> {
  const inflight = () => server.sessions().reduce((n, s) => n + s.protocol.load.inbound, 0);
  while (inflight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  // A handler that just returned has its response written from a microtask: one turn of the loop sends it.
  await new Promise((r) => setImmediate(r));
}

/** Resolve on the registry's next change, or after `ms`. */
function waitForChange(registry: ReturnType<typeof createSelfMcpServer>["registry"], ms: number): Promise<void> {
  return new Promise((resolve) => {
    // A long --grace must not overflow setTimeout (it would fire every 1 ms and spin this loop).
    const cancelTimer = setLongTimeout(done, ms);
    const off = registry.onChange(done);
    function done() {
      cancelTimer();
      off();
      resolve();
    }
  });
}
