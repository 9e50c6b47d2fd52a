/**
 * What an agent built from a configuration serves: stdio, or HTTP(S) with the A2A endpoint (its card and
 * push allow-list from `serve.a2a`), `/metrics` and the operator's console — from the config's `serve`
 * block and the settings over it (the CLI's flags). Here in the SDK, not in the CLI, so that
 * `createAgentFromConfig(config).serve()` serves what the configuration says, exactly as `agentd serve` does.
 */
import type { A2aServeOptions } from "../../a2a/server/index.ts";
import type { AgentdConfig } from "../../config/types.generated.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { ServeOptions } from "../serving/served-agent.ts";
import type { HttpServeSettings, MetricsServeSettings } from "./serve-options-from-config.ts";

/** Settings over the config's `serve` block (the CLI's flags); each wins over the config's value. */
export interface ServeSettings extends HttpServeSettings, MetricsServeSettings {
  /** Serve on stdin/stdout even when the config names an HTTP address (`--stdio`). */
  stdio?: boolean;
  /** Also serve A2A on the HTTP listener, as `serve.a2a: true` does (`--a2a`). */
  a2a?: boolean;
  /** Also serve the operator's console on the HTTP listener, as `serve.console: true` does (`--console`). */
  console?: boolean;
}

/**
 * The A2A endpoint `serve.a2a` describes (or `a2a`, the `--a2a` flag, asks for): what its card says and the
 * webhook hosts push notifications may go to besides loopback. Undefined when A2A is off.
 */
export function a2aServeOptionsFromConfig(config: AgentdConfig, a2a?: boolean): A2aServeOptions | undefined {
  const configured = a2a === true ? config.serve?.a2a || true : config.serve?.a2a;
  if (!configured) return undefined;
  const { pushAllowedHosts, ...card } = configured === true ? { pushAllowedHosts: undefined } : configured;
  return pushAllowedHosts ? { card, push: { allowedHosts: pushAllowedHosts } } : { card };
}

/**
 * Where and what to serve: HTTP(S) when the settings or the config name an address (unless `stdio`), with
 * A2A, `/metrics` and the console as configured; stdio otherwise. Each of those three without an HTTP
 * listener is one usage line naming what to add. `AGENT_AUTH_TOKENS` holds bearer tokens unless the config
 * names its own variable (`serve.auth.tokensEnv`).
 */
export async function serveOptionsFromConfig(
  config: AgentdConfig,
  settings: ServeSettings = {},
  env: Record<string, string | undefined> = process.env,
): Promise<ServeOptions> {
  if (settings.stdio && settings.listen) throw new AgentdError("E_USAGE", "--stdio and --http exclude each other: pick one");
  // Loaded when the agent serves: TLS files, client certificates, proxies and bearer tokens are no run's concern.
  const { httpServeOptionsFromConfig, metricsServeOptionsFromConfig } = await import("./serve-options-from-config.ts");
  const authTokensEnv =
    settings.authTokensEnv ?? (!config.serve?.auth?.tokensEnv && env.AGENT_AUTH_TOKENS ? "AGENT_AUTH_TOKENS" : undefined);
  const http = settings.stdio ? undefined : await httpServeOptionsFromConfig(config, { ...settings, authTokensEnv });
  const a2a = a2aServeOptionsFromConfig(config, settings.a2a);
  if (a2a && !http) throw onHttpOnly("--a2a");
  const metrics = await metricsServeOptionsFromConfig(config, settings, env);
  if (metrics && !http) throw onHttpOnly("--metrics");
  const withConsole = settings.console === true || config.serve?.console === true;
  if (withConsole && !http) throw onHttpOnly("--console");
  if (!http) return { stdio: true };
  // A configured trace viewer turns the console's trace ids into links (telemetry.traceUrl).
  const traceUrl = config.telemetry?.traceUrl;
  return { http, a2a: a2a ?? false, metrics, console: withConsole && traceUrl ? { traceUrl } : withConsole };
}

const onHttpOnly = (flag: string) =>
  new AgentdError("E_USAGE", `${flag} serves on the HTTP listener: add --http HOST:PORT (or serve.http in the config)`);
