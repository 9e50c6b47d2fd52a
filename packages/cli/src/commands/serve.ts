/**
 * `agentd serve`: wait for inbound work. Serves the agent's MCP surface (agent.run, agent://status,
 * agent://runs/{runId}) on stdio or on Streamable HTTP(S) with /healthz and /readyz.
 */
import { AgentdError, createAgentFromConfig } from "@agentd/sdk";
import { resolveConfig } from "@agentd/sdk/config";
import { canonicalPrincipalId } from "@agentd/sdk/serve";
import { reloadOnChange, serveOptionsFromConfig } from "@agentd/sdk/agent";
import { defineCommand } from "citty";
import { agentOptions } from "../agent-options.ts";
import { EXIT } from "../exit-codes.ts";
import { interruptedBy, shutdownSignals } from "../modes/shutdown-signals.ts";
import { stderrLogger } from "../telemetry.ts";
import { VERSION } from "./version.ts";
import { repeatedFlag } from "./mcp-args.ts";
import { configArgs, durationFlag, overridesFrom } from "./shared-args.ts";

export const serveExamples = [
  "agentd serve --stdio                                  # an MCP server on stdin/stdout",
  "agentd serve --http 127.0.0.1:7777                    # Streamable HTTP on loopback (development)",
  "agentd serve --http 0.0.0.0:443 --tls-cert c.pem --tls-key k.pem --auth-tokens tokens.txt",
  "agentd serve --http 127.0.0.1:7777 --notifications    # logging + progress notifications to clients",
  "agentd serve --http 127.0.0.1:7777 --metrics          # also GET /metrics in the Prometheus text format",
  "agentd serve --http 127.0.0.1:7777 --a2a              # also A2A v1.0: agent card, /a2a (JSON-RPC), /a2a/rest",
  "agentd serve --http 127.0.0.1:7777 --console          # also the operator's console at http://127.0.0.1:7777/console",
  "agentd serve --http 0.0.0.0:443 --tls-cert c.pem --tls-key k.pem --tls-ca ca.pem --operators 'mtls:CN=bob,O=ops'   # operator: the subject openssl prints with -nameopt RFC2253",
  "agentd serve --http 0.0.0.0:443 --tls-cert c.pem --tls-key k.pem --auth-tokens t.txt --operator-tokens ops.txt --public-url https://agentd.example.com/mcp",
  "agentd serve --http 0.0.0.0:8080 --behind-proxy 10.0.0.0/8 --auth-tokens t.txt --public-url https://agents.example.com/mcp   # TLS at the ingress",
  "agentd serve --http 0.0.0.0:8080 --behind-proxy 127.0.0.6 --forwarded-client-cert   # Istio: the sidecar's verified client certificate",
];

export const serveCommand = defineCommand({
  meta: { name: "serve", description: "Serve agentd as an MCP server (stdio or Streamable HTTP) and wait for work." },
  args: {
    stdio: { type: "boolean", description: "Serve MCP on stdin/stdout (the default when --http is absent)" },
    http: { type: "string", description: "Serve Streamable HTTP on HOST:PORT (loopback unless TLS and auth are set)" },
    "tls-cert": { type: "string", description: "TLS certificate (PEM file)" },
    "tls-key": { type: "string", description: "TLS private key (PEM file)" },
    "tls-ca": { type: "string", description: "CA (PEM file) that client certificates must chain to: enables mTLS" },
    "auth-tokens": { type: "string", description: "File of bearer tokens, one a line (or AGENT_AUTH_TOKENS, comma-separated)" },
    "operator-tokens": {
      type: "string",
      description: "File of bearer tokens, one a line, whose holders are operators (see every principal's runs)",
    },
    operators: {
      type: "string",
      description:
        "A principal id with the operator role; repeat for more (e.g. --operators local --operators 'mtls:CN=bob\\,O=ops' --operators 'mtls:CN=alice,O=ops')",
    },
    "public-url": {
      type: "string",
      description: "The endpoint URL clients reach (e.g. https://agentd.example.com/mcp), advertised in RFC 9728 metadata",
    },
    "behind-proxy": {
      type: "string",
      description:
        "TLS is terminated by a proxy in front (ingress, mesh) at these addresses (comma-separated IPs or CIDR ranges): plain HTTP off loopback, still with auth; Forwarded/X-Forwarded-* believed from them only",
    },
    "forwarded-client-cert": {
      type: "boolean",
      description:
        "With --behind-proxy: authenticate by the client certificate the mesh forwards in X-Forwarded-Client-Cert (principal mtls:<subject or URI>)",
    },
    "json-response": { type: "boolean", description: "Answer POSTs with one JSON body instead of an SSE stream" },
    a2a: {
      type: "boolean",
      description: "Also serve A2A v1.0 on the HTTP listener: /.well-known/agent-card.json, JSON-RPC at /a2a, HTTP+JSON at /a2a/rest",
    },
    metrics: {
      type: "boolean",
      description:
        "Serve GET /metrics (Prometheus text format) on the HTTP listener, for operators' credentials or --metrics-token-file (serve.metrics)",
    },
    "metrics-token-file": { type: "string", description: "A file holding the bearer token scrapers of /metrics send (implies --metrics)" },
    console: {
      type: "boolean",
      description: "Also serve the operator's console (a web page) at /console on the HTTP listener (docs/console.md)",
    },
    notifications: {
      type: "boolean",
      description: "Declare logging; send clients notifications/message and progress (capabilities.serverNotifications)",
    },
    "allowed-origin": {
      type: "string",
      description: "Origins allowed instead of the loopback ones (comma-separated scheme://host[:port])",
    },
    "allowed-host": {
      type: "string",
      description: "Host header values allowed instead of the bound address and loopback names (comma-separated host or host:port)",
    },
    grace: {
      type: "string",
      description: "On SIGTERM (or stdin's end), let in-flight runs finish this long, then answer them as cancelled (default 30s)",
    },
    "watch-config": {
      type: "boolean",
      default: true,
      description: "Reload when the config file changes, e.g. a ConfigMap update (--no-watch-config: only on SIGHUP)",
    },
    ...configArgs,
  },
  async run({ args, rawArgs }) {
    // One principal each time: a certificate subject holds commas, so the value is never split.
    const operators = repeatedFlag(rawArgs, "operators").map(operatorFlag);
    // The flags over the file's configuration; the operator's reload (agentd/reload) applies them again.
    const overrides = { ...overridesFrom(args, rawArgs), operators, serverNotifications: args.notifications === true };
    const resolve = () => resolveConfig({ configPath: args.config, overrides });
    const resolved = await resolve();
    const { config } = resolved;
    // Checked up front: a bad --grace must not surface only at shutdown.
    const grace = args.grace ? parseGrace(args.grace) : 30_000;
    const list = (v: string | undefined) =>
      v
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    // --http, else the config file's serve.http (unless --stdio asks for stdio), with A2A, /metrics and the console.
    const serveOptions = await serveOptionsFromConfig(config, {
      stdio: args.stdio,
      listen: args.http,
      authTokensFile: args["auth-tokens"],
      operatorTokensFile: args["operator-tokens"],
      publicUrl: args["public-url"],
      tlsCert: args["tls-cert"],
      tlsKey: args["tls-key"],
      tlsCa: args["tls-ca"],
      allowedOrigins: list(args["allowed-origin"]),
      allowedHosts: list(args["allowed-host"]),
      jsonResponse: args["json-response"],
      trustedProxies: list(args["behind-proxy"]),
      forwardedClientCert: args["forwarded-client-cert"] || undefined,
      a2a: args.a2a,
      metrics: args.metrics,
      metricsTokenFile: args["metrics-token-file"],
      console: args.console,
    });
    const logger = stderrLogger();
    const agent = createAgentFromConfig(config, {
      ...agentOptions(resolved, logger, { version: VERSION }),
      reloadConfig: async () => (await resolve()).config,
    });
    // The first SIGTERM/SIGINT drains, a second exits at once: the execution modes' one signal path.
    const shutdown = shutdownSignals();
    // SIGHUP and changes of the config file (a ConfigMap update) reload it, as the operator's agentd/reload does.
    const watcher = reloadOnChange({
      path: args["watch-config"] !== false ? resolved.file : undefined,
      reload: () => agent.reload(),
      logger,
    });
    try {
      const serving =
        "http" in serveOptions
          ? await listenOrExplain(`${serveOptions.http.hostname}:${serveOptions.http.port}`, () => agent.serve(serveOptions))
          : await agent.serve(serveOptions);
      // The configured triggers start once serving; a failure is logged and serving goes on (agent://status shows it).
      if (agent.triggers)
        await agent
          .start()
          .catch((error) => logger.error("triggers.failed", { error: error instanceof Error ? error.message : String(error) }));
      const outcome = await Promise.race([shutdown.received, serving.ended.then(() => undefined)]);
      // Drain: stop taking work, let in-flight runs finish (and be answered) up to the grace, then cancel them.
      logger.info("serve.draining", { signal: outcome ?? "stdin-closed", running: agent.status().inFlight, graceMs: grace });
      await agent.drain(grace, outcome ?? "stdin-closed");
      logger.info("serve.stopped", { signal: outcome ?? "stdin-closed" });
      if (outcome) throw interruptedBy(outcome);
      return EXIT.ok;
    } finally {
      shutdown.dispose();
      watcher.close();
      await agent.close();
    }
  },
});

/** One `--operators` value in canonical form, or a usage error naming it. */
function operatorFlag(value: string): string {
  try {
    return canonicalPrincipalId(value);
  } catch (e) {
    throw new AgentdError("E_USAGE", `--operators '${value}' is not a principal id: ${(e as Error).message}`);
  }
}

function parseGrace(value: string): number {
  return durationFlag("--grace", value, "30s");
}

/**
 * Start listening; a failure the user can fix (port in use, a certificate or key the TLS library rejects)
 * becomes one line naming what to change instead of an "unexpected error".
 */
export async function listenOrExplain<T>(address: string, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (e) {
    if (AgentdError.isInstance(e)) throw e;
    const message = e instanceof Error ? e.message : String(e);
    if (/in use|EADDRINUSE/i.test(message))
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `--http ${address}: the address is already in use; pick another port (or 0 for any free one)`,
      );
    if (/PEM|certificate|private key|SSL|TLS|asn1|x509/i.test(message))
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `--tls-cert/--tls-key: the TLS library rejected the certificate or key (${message.slice(0, 120)}); check that --tls-cert is the certificate and --tls-key its private key`,
      );
    if (/EACCES|permission/i.test(message))
      throw new AgentdError("E_CONFIG_INVALID", `--http ${address}: not permitted to listen there (ports below 1024 need privileges)`);
    throw e;
  }
}
