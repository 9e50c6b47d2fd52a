/**
 * The HTTP serving options a configuration's `serve` block (and the flags over it) describes: the listen
 * address, TLS material and bearer tokens read from their files, the binding policy checked with one line
 * naming what to add. Secrets are read here and never echoed: a wrong file may well be key material.
 */
import { withoutUndefined } from "../../_internal/without-undefined.ts";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { AgentdConfig } from "../../config/types.generated.ts";
import { bearerTokenEntries } from "../../serve/principal.ts";
import { isLoopbackHost } from "../../transport/http-server/origin-check.ts";
import { everyAddressCovered, parseTrustedProxies } from "../../transport/http-server/proxy-ranges.ts";
import type { JwtIssuerOptions } from "../../transport/http-server/jwt-verifier.ts";
import type { BearerTokenEntry } from "../../transport/http-server/options.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { HttpServeOptions } from "../serving/served-agent.ts";
import type { MetricsEndpointOptions } from "../../serve/metrics-endpoint.ts";

/** Settings over the config's `serve` block (the CLI's flags); each wins over the config's value. */
export interface HttpServeSettings {
  /** HOST:PORT (IPv6 in brackets); default the config's `serve.http`. */
  listen?: string;
  /** A file of bearer tokens, one a line. */
  authTokensFile?: string;
  /** An environment variable holding bearer tokens, comma-separated. */
  authTokensEnv?: string;
  /** A file of bearer tokens (one a line) whose holders are operators: they see every principal's runs. */
  operatorTokensFile?: string;
  /** The endpoint URL clients reach, advertised in RFC 9728 metadata (default: the bound address). */
  publicUrl?: string;
  tlsCert?: string;
  tlsKey?: string;
  /** A CA that client certificates must chain to: turns mutual TLS on. */
  tlsCa?: string;
  allowedOrigins?: string[];
  allowedHosts?: string[];
  /** Answer POSTs with one JSON body instead of an SSE stream. */
  jsonResponse?: boolean;
  /** A proxy in front terminates TLS: the proxies' addresses (IPs or CIDR ranges), over `serve.behindProxy.trustedProxies`. */
  trustedProxies?: string[];
  /** Authenticate by the client certificate the mesh forwards (`serve.behindProxy.forwardedClientCert`). */
  forwardedClientCert?: boolean;
}

/** Parse HOST:PORT (IPv6 in brackets). */
export function parseListen(value: string): { hostname: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new AgentdError("E_USAGE", `--http expects HOST:PORT such as 127.0.0.1:7777, got '${value}'`);
  return { hostname: (m[1] ?? m[2]) as string, port };
}

/** Bearer tokens: one a line in a file (blank lines and # comments ignored), or comma-separated in an env var. */
export async function loadTokens(
  file: string | undefined,
  envName: string | undefined,
  env: Record<string, string | undefined> = process.env,
): Promise<string[]> {
  const tokens: string[] = [];
  if (file) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      throw new AgentdError("E_CONFIG_INVALID", `auth tokens file ${file} cannot be read`);
    }
    tokens.push(
      ...text
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith("#")),
    );
    if (tokens.length === 0) throw new AgentdError("E_CONFIG_INVALID", `auth tokens file ${file} holds no token`);
  }
  if (envName) {
    const v = env[envName];
    if (!v) throw new AgentdError("E_CONFIG_INVALID", `environment variable ${envName} (auth tokens) is not set`);
    tokens.push(
      ...v
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    );
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
  if (!text.includes("-----BEGIN ")) throw new AgentdError("E_CONFIG_INVALID", `${flag}: ${path} is not a PEM file`);
  return text;
}

/**
 * The HTTP serving options, or undefined when neither the settings nor the config name an address.
 * Refuses a non-loopback address without TLS and auth (E_CONFIG_INVALID).
 */
export async function httpServeOptionsFromConfig(
  config: AgentdConfig,
  settings: HttpServeSettings = {},
): Promise<HttpServeOptions | undefined> {
  const listen = settings.listen ?? config.serve?.http;
  if (!listen) return undefined;
  const { hostname, port } = parseListen(listen);
  const c = config.serve;
  const tokens = await loadTokens(settings.authTokensFile ?? c?.auth?.tokensFile, settings.authTokensEnv ?? c?.auth?.tokensEnv);
  const operatorTokens = await loadTokens(settings.operatorTokensFile ?? c?.auth?.operatorTokensFile, undefined);
  const statusTokens = await loadTokens(c?.auth?.statusTokensFile, undefined);
  tokens.push(...operatorTokens);
  const publicUrl = settings.publicUrl ?? c?.publicUrl;
  const cert = await readPem(settings.tlsCert ?? c?.tls?.cert, "--tls-cert");
  const key = await readPem(settings.tlsKey ?? c?.tls?.key, "--tls-key");
  const ca = await readPem(settings.tlsCa ?? c?.tls?.ca, "--tls-ca");
  if ((cert && !key) || (key && !cert)) throw new AgentdError("E_USAGE", "--tls-cert and --tls-key go together");
  const mtls = ca !== undefined || c?.auth?.mtls === true;
  // The transport refuses this too; here the line names what to add.
  // JWT access tokens from configured issuers (OAuth 2.1 resource server) are an auth method too.
  const jwt = (c?.auth?.jwt ?? []).map(resolveIssuerSecrets);
  const trustedProxies = settings.trustedProxies ?? c?.behindProxy?.trustedProxies;
  const forwardedClientCert = settings.forwardedClientCert ?? c?.behindProxy?.forwardedClientCert ?? false;
  if (forwardedClientCert && !trustedProxies)
    throw new AgentdError(
      "E_USAGE",
      "--forwarded-client-cert believes a proxy's header: add --behind-proxy ADDRESSES (serve.behindProxy.trustedProxies)",
    );
  if (trustedProxies) checkTrustedProxies(trustedProxies, forwardedClientCert);
  const bearerOrJwt = tokens.length > 0 || statusTokens.length > 0 || jwt.length > 0;
  if (trustedProxies && !isLoopbackHost(hostname) && !(bearerOrJwt || forwardedClientCert))
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `refusing to serve on ${hostname} behind a proxy without auth: add --auth-tokens FILE, serve.auth.jwt issuers or --forwarded-client-cert (the mesh's client certificate)`,
    );
  if (!trustedProxies && !isLoopbackHost(hostname) && !(cert && (bearerOrJwt || mtls)))
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `refusing to serve on ${hostname} without TLS and auth: add --tls-cert and --tls-key, and --auth-tokens FILE, --tls-ca (mTLS) or serve.auth.jwt issuers; behind an ingress or mesh that terminates TLS, --behind-proxy ADDRESSES with auth; or bind 127.0.0.1`,
    );
  const origins = [...(settings.allowedOrigins ?? []), ...(c?.allowedOrigins ?? [])];
  const options: HttpServeOptions = {
    hostname,
    port,
    tls: cert && key ? { cert, key, ca: ca || undefined, requireClientCert: ca ? true : undefined } : undefined,
    behindProxy: trustedProxies ? { trustedProxies, forwardedClientCert: forwardedClientCert || undefined } : undefined,
    auth:
      tokens.length || statusTokens.length || mtls || jwt.length
        ? {
            bearerTokens:
              tokens.length || statusTokens.length
                ? [...bearerTokenEntries(tokens, operatorTokens, c?.auth?.tokenPermissions), ...statusTokenEntries(statusTokens)]
                : undefined,
            mtls: mtls || undefined,
            jwt: jwt.length ? jwt : undefined,
          }
        : undefined,
    allowedOrigins: origins.length ? origins : undefined,
    allowedHosts: settings.allowedHosts?.length ? settings.allowedHosts : undefined,
    responseMode: settings.jsonResponse ? "json" : undefined,
    publicUrl: publicUrl || undefined,
    limits: c?.limits,
  };
  // Public, and spread by callers over their own defaults: only the keys that are set.
  return withoutUndefined(options) as HttpServeOptions;
}

/**
 * The proxies' addresses, checked before anything that depends on them: a bad entry is named (not taken
 * for a missing auth method), and a list holding every IPv4 or IPv6 address is refused with forwarded client
 * certificates — every client would be believed about its own certificate.
 */
function checkTrustedProxies(trustedProxies: string[], forwardedClientCert: boolean): void {
  const { ranges } = parseTrustedProxies(trustedProxies);
  const open = forwardedClientCert ? everyAddressCovered(ranges) : undefined;
  if (open)
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `refusing --behind-proxy ${trustedProxies.join(",")} with --forwarded-client-cert: it holds ${open}, so any client could name its own certificate; list only the proxies' addresses (e.g. 10.0.0.0/8 or 127.0.0.6) in --behind-proxy or serve.behindProxy.trustedProxies`,
    );
}

/** Read-only tokens (`serve.auth.statusTokensFile`): principals `bearer:status#N`, allowed to read status only. */
function statusTokenEntries(tokens: string[]): BearerTokenEntry[] {
  return tokens.map((token, i) => ({ token, name: `status#${i}`, permissions: ["status"] }));
}

type ConfiguredIssuer = NonNullable<NonNullable<NonNullable<AgentdConfig["serve"]>["auth"]>["jwt"]>[number];

/** An issuer as the HTTP server takes it: the introspection client secret read from its env var or file. */
function resolveIssuerSecrets(issuer: ConfiguredIssuer): JwtIssuerOptions {
  const { introspection, ...rest } = issuer;
  if (!introspection) return rest;
  const { clientSecretEnv, clientSecretFile, ...intro } = introspection;
  let clientSecret: string | undefined;
  if (clientSecretEnv) clientSecret = process.env[clientSecretEnv];
  else if (clientSecretFile) {
    try {
      clientSecret = readFileSync(clientSecretFile, "utf8").trim();
    } catch {
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `serve.auth.jwt (${issuer.issuer}): introspection.clientSecretFile ${clientSecretFile} cannot be read`,
      );
    }
  }
  if (!clientSecret)
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `serve.auth.jwt (${issuer.issuer}): introspection needs this server's client secret: set clientSecretEnv to a variable that is set, or clientSecretFile`,
    );
  return { ...rest, introspection: { ...intro, clientSecret } };
}

/** Settings over the config's `serve.metrics` (the CLI's flags). */
export interface MetricsServeSettings {
  /** `--metrics`: serve GET /metrics. */
  metrics?: boolean;
  /** `--metrics-token-file`: a file holding the scrapers' bearer token. */
  metricsTokenFile?: string;
}

/**
 * `/metrics` as the config's `serve.metrics` and the flags describe it: undefined when off, else the
 * guard (its own token read from its file or variable, or none: operators scrape). A token named but
 * missing is a configuration error naming where it should be.
 */
export async function metricsServeOptionsFromConfig(
  config: AgentdConfig,
  settings: MetricsServeSettings = {},
  env: Record<string, string | undefined> = process.env,
): Promise<MetricsEndpointOptions | undefined> {
  const c = config.serve?.metrics;
  const on = settings.metrics === true || settings.metricsTokenFile !== undefined || c === true || (typeof c === "object" && c !== null);
  if (!on) return undefined;
  const file = settings.metricsTokenFile ?? (typeof c === "object" ? c.tokenFile : undefined);
  const envName = typeof c === "object" ? c.tokenEnv : undefined;
  if (file) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `metrics token file ${file} cannot be read (--metrics-token-file / serve.metrics.tokenFile)`,
      );
    }
    const token = text.split("\n")[0]!.trim();
    if (!token)
      throw new AgentdError("E_CONFIG_INVALID", `metrics token file ${file} is empty: put the scrapers' bearer token on its first line`);
    return { token };
  }
  if (envName) {
    const token = env[envName]?.trim();
    if (!token) throw new AgentdError("E_CONFIG_INVALID", `environment variable ${envName} (serve.metrics.tokenEnv) is not set`);
    return { token };
  }
  return {};
}
