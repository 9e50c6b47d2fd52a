/**
 * The `oauth` block of an `mcpServers` entry, and reading its secrets: a client secret only by environment
 * variable (`clientSecretEnv`) or file (`clientSecretFile`), a private key only by file (`privateKeyFile`),
 * so no secret sits in the config file itself.
 */
import { readFileSync } from "node:fs";
import { AgentdError } from "../../../wire/errors.ts";
import type { IdentityAssertionSettings } from "./identity-assertion.ts";
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
  grant?: "authorization_code" | "client_credentials" | "identity_assertion";
  clientName?: string;
  /** The enterprise IdP of the `identity_assertion` grant, and where the person's ID token is. */
  identityAssertion?: {
    tokenEndpoint: string;
    clientId?: string;
    clientSecretEnv?: string;
    idTokenEnv?: string;
    idTokenFile?: string;
  };
}

const readSecretFile = (path: string, what: string, server: string) => {
  try {
    return readFileSync(path, "utf8").trim();
  } catch (e) {
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `MCP server '${server}': cannot read oauth.${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
};

/** Resolve the secrets an `oauth` block refers to. Throws one clear line when one is missing. */
export function resolveOAuthSettings(
  server: string,
  config: OAuthConfig,
  env: Record<string, string | undefined> = process.env,
): OAuthSettings {
  let clientSecret: string | undefined;
  if (config.clientSecretEnv) {
    clientSecret = env[config.clientSecretEnv];
    if (!clientSecret)
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `MCP server '${server}': oauth.clientSecretEnv names ${config.clientSecretEnv}, which is not set`,
      );
  } else if (config.clientSecretFile) {
    clientSecret = readSecretFile(config.clientSecretFile, "clientSecretFile", server);
    if (!clientSecret)
      throw new AgentdError("E_CONFIG_INVALID", `MCP server '${server}': oauth.clientSecretFile ${config.clientSecretFile} is empty`);
  }
  const privateKeyPem = config.privateKeyFile ? readSecretFile(config.privateKeyFile, "privateKeyFile", server) : undefined;
  return {
    clientId: config.clientId || undefined,
    clientSecret,
    privateKeyPem,
    signingAlg: config.signingAlg || undefined,
    clientMetadataUrl: config.clientMetadataUrl || undefined,
    scopes: config.scopes,
    grant: config.grant || undefined,
    clientName: config.clientName || undefined,
    identityAssertion: config.identityAssertion ? identityAssertionSettings(server, config.identityAssertion, env) : undefined,
  };
}

/** The IdP settings; the ID token is read each time the grant runs (the platform may renew it). */
function identityAssertionSettings(
  server: string,
  ia: NonNullable<OAuthConfig["identityAssertion"]>,
  env: Record<string, string | undefined>,
): IdentityAssertionSettings {
  const { idTokenEnv, idTokenFile } = ia;
  if (!idTokenEnv && !idTokenFile)
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `MCP server '${server}': oauth.identityAssertion needs idTokenEnv or idTokenFile (where the person's ID token is)`,
    );
  let clientSecret: string | undefined;
  if (ia.clientSecretEnv) {
    clientSecret = env[ia.clientSecretEnv];
    if (!clientSecret)
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `MCP server '${server}': oauth.identityAssertion.clientSecretEnv names ${ia.clientSecretEnv}, which is not set`,
      );
  }
  const idToken = () => {
    const token = idTokenEnv ? env[idTokenEnv] : readSecretFile(idTokenFile!, "identityAssertion.idTokenFile", server);
    if (!token) throw new AgentdError("E_UNAUTHORIZED", `MCP server '${server}': no ID token: ${idTokenEnv} is not set`);
    return token.trim();
  };
  return {
    tokenEndpoint: ia.tokenEndpoint,
    clientId: ia.clientId || undefined,
    clientSecret: clientSecret || undefined,
    idToken,
  };
}
