/**
 * Client driver for the official conformance `auth/*` scenarios, built on our SDK: the Streamable HTTP
 * transport with the OAuth provider under a `ManagedMcpClient`.
 *
 *   bun auth-driver.ts <server-url>     (scenario in MCP_CONFORMANCE_SCENARIO, credentials the harness
 *                                        hands out in MCP_CONFORMANCE_CONTEXT)
 *
 * The harness's authorization endpoint grants at once by redirecting to our redirect URI, so the
 * "person" of the authorization code grant is a fetch that reads the redirect's query. The context maps
 * onto what an operator would configure: pre-registered client id and secret, a private key, a Client ID
 * Metadata Document URL, an enterprise IdP with the person's ID token (the identity assertion grant); the
 * client-credentials scenarios select that grant. After connecting, the driver
 * lists tools and calls `test-tool` when offered (the step-up scenarios ask for more scope on the call).
 */
import { jsonLinesLogger } from "../../../log.ts";
import { ManagedMcpClient } from "../managed/managed-client.ts";
import {
  type AuthorizationCodeHandler,
  MemoryTokenStore,
  OAuthClientProvider,
  type OAuthSettings,
} from "../../../transport/http-client/oauth/index.ts";
import { StreamableHttpClientTransport } from "../../../transport/http-client/streamable-http-client.ts";

/** The Client ID Metadata Document URL the `auth/basic-cimd` authorization server expects. */
const CIMD_URL = "https://conformance-test.local/client-metadata.json";

interface Context {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  /** Enterprise-managed authorization: the IdP, agentd's client there, and the person's ID token. */
  idp_token_endpoint?: string;
  idp_client_id?: string;
  idp_id_token?: string;
}

function settingsFor(scenario: string, context: Context): OAuthSettings {
  const s: OAuthSettings = { clientName: "agentd-conformance-driver" };
  if (context.client_id) s.clientId = context.client_id;
  if (context.client_secret) s.clientSecret = context.client_secret;
  if (context.private_key_pem) s.privateKeyPem = context.private_key_pem;
  if (context.signing_algorithm) s.signingAlg = context.signing_algorithm;
  if (scenario === "auth/basic-cimd") s.clientMetadataUrl = CIMD_URL;
  if (scenario.startsWith("auth/client-credentials-")) s.grant = "client_credentials";
  if (context.idp_token_endpoint && context.idp_id_token) {
    const idToken = context.idp_id_token;
    s.grant = "identity_assertion";
    s.identityAssertion = {
      tokenEndpoint: context.idp_token_endpoint,
      clientId: context.idp_client_id,
      idToken: () => idToken,
    };
  }
  return s;
}

/** Follow the authorization URL; the server answers with a redirect to our redirect URI carrying the code. */
const followRedirect: AuthorizationCodeHandler = {
  redirectUri: "http://127.0.0.1/callback",
  async authorize(url, signal) {
    const response = await fetch(url, { redirect: "manual", signal });
    await response.body?.cancel().catch(() => {});
    const location = response.headers.get("location");
    if (!location) throw new Error(`the authorization endpoint answered HTTP ${response.status} without a redirect`);
    return new URL(location, url).searchParams;
  },
};

async function main(): Promise<number> {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const arg = process.argv.at(-1);
  if (!scenario.startsWith("auth/") || !arg || !/^https?:/.test(arg)) {
    process.stderr.write("usage: MCP_CONFORMANCE_SCENARIO=auth/<name> bun auth-driver.ts <url>\n");
    return 2;
  }
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Context;
  const url = new URL(arg);
  const logger = jsonLinesLogger((line) => process.stderr.write(line), "info");
  const auth = new OAuthClientProvider({
    server: "conformance",
    url,
    settings: settingsFor(scenario, context),
    store: new MemoryTokenStore(),
    interactive: followRedirect,
    logger,
  });
  const client = new ManagedMcpClient({
    name: "conformance",
    transportFactory: () => new StreamableHttpClientTransport(url, { name: "conformance", logger, auth, openGetStream: false }),
    clientInfo: { name: "agentd-conformance-driver", version: "0.1.0" },
    logger,
  });
  try {
    await client.start({ timeoutMs: 20_000 });
    const tools = await client.listTools();
    if (tools.some((t) => t.name === "test-tool")) await client.callTool("test-tool", {});
    return 0;
  } catch (e) {
    process.stderr.write(`${scenario}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  } finally {
    await client.close();
  }
}

process.exitCode = await main();
