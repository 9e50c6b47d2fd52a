/**
 * The `oauth` block of an `mcpServers` entry, and reading its secrets: a client secret only by environment
 * variable (`clientSecretEnv`) or file (`clientSecretFile`), a private key only by file (`privateKeyFile`),
 * so no secret sits in the config file itself.
 */
import { readFileSync } from "node:fs";
import { AgentdError } from "../../../wire/errors.ts";
import type { OAuthSettings } from "./provider.ts";

/** The `oauth` block as configured. */
export interface OAuthConfig {
  clientId?: string;
  clientSecretEnv?: string;
  clientSecretFile?: string;
  privateKeyFile?: string;
  signingAlg?: "ES256" | "RS256";
  clientMetadataUrl?: string;
  scopes?: string[];
  grant?: "authorization_code" | "client_credentials";
  clientName?: string;
}

const readSecretFile = (path: string, what: string, server: string) => {
  try {
    return readFileSync(path, "utf8").trim();
  } catch (e) {
    throw new AgentdError("E_CONFIG_INVALID", `MCP server '${server}': cannot read oauth.${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
};

/** Resolve the secrets an `oauth` block refers to. Throws one clear line when one is missing. */
export function resolveOAuthSettings(server: string, config: OAuthConfig, env: Record<string, string | undefined> = process.env): OAuthSettings {
  let clientSecret: string | undefined;
  if (config.clientSecretEnv) {
    clientSecret = env[config.clientSecretEnv];
    if (!clientSecret) throw new AgentdError("E_CONFIG_INVALID", `MCP server '${server}': oauth.clientSecretEnv names ${config.clientSecretEnv}, which is not set`);
  } else if (config.clientSecretFile) clientSecret = readSecretFile(config.clientSecretFile, "clientSecretFile", server);
  const privateKeyPem = config.privateKeyFile ? readSecretFile(config.privateKeyFile, "privateKeyFile", server) : undefined;
  return {
    ...(config.clientId ? { clientId: config.clientId } : {}),
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    ...(privateKeyPem !== undefined ? { privateKeyPem } : {}),
    ...(config.signingAlg ? { signingAlg: config.signingAlg } : {}),
    ...(config.clientMetadataUrl ? { clientMetadataUrl: config.clientMetadataUrl } : {}),
    ...(config.scopes ? { scopes: config.scopes } : {}),
    ...(config.grant ? { grant: config.grant } : {}),
    ...(config.clientName ? { clientName: config.clientName } : {}),
  };
}
