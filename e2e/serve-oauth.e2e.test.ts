/**
 * `agentd serve` as an OAuth resource server, end to end: a real OpenID provider (`oidc-provider`) on
 * 127.0.0.1 is the configured issuer (`serve.auth.jwt`); agentd's own MCP client, configured with an
 * `oauth` block (client credentials, secret by environment variable), discovers the issuer from serve's
 * 401 and RFC 9728 metadata, obtains a JWT for serve's resource URL, and runs the agent. The run belongs to
 * the principal `jwt:ISSUER#CLIENT`, an operator by the configured operator scope.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { connectServer } from "@agentd/sdk/agent";
import { nullLogger } from "@agentd/sdk/telemetry";
import { MACHINE_SECRET, type OidcProvider, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
let oidc: OidcProvider | undefined;
afterEach(async () => {
  await stopAllServe();
  await world?.close();
  await oidc?.stop();
  world = undefined;
  oidc = undefined;
}, 30_000);

describe("agentd serve with JWT access tokens", () => {
  test("agentd's OAuth client gets a token from the issuer serve names and runs the agent as jwt:ISSUER#machine", async () => {
    let resource = "";
    oidc = await startOidcProvider(() => resource);
    world = await serveWorld([(req) => ({ text: `done: ${req.messages.find((m) => m.role === "user")?.text}` })], {
      onExhausted: "repeat-last",
    });
    world.ws.writeConfig({
      serve: { auth: { jwt: [{ issuer: oidc.issuer, requiredScopes: ["mcp:tools"], operatorScope: "mcp:tools" }] } },
    });
    const serve = await startServe(["--http", "127.0.0.1:0", "--grace", "1s"], { env: world.env, cwd: world.ws.dir });
    resource = serve.url.href;

    const refused = await fetch(serve.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    await refused.body?.cancel();
    expect(refused.status).toBe(401);
    const md = await (await fetch(new URL("/.well-known/oauth-protected-resource", serve.url))).json();
    expect(md).toMatchObject({ resource: serve.url.href, authorization_servers: [oidc.issuer] });

    process.env.SERVE_OAUTH_TEST_SECRET = MACHINE_SECRET;
    process.env.AGENTD_OAUTH_STORE = `${world.ws.dir}/oauth.json`;
    const client = await connectServer(
      "agent",
      {
        url: serve.url.href,
        oauth: { clientId: "machine", clientSecretEnv: "SERVE_OAUTH_TEST_SECRET", grant: "client_credentials", scopes: ["mcp:tools"] },
      },
      { logger: nullLogger },
    );
    try {
      const result = await client.callTool("agent.run", { instruction: "a job for the machine", runId: "m-1" });
      expect((result.content[0] as { text: string }).text).toBe("done: a job for the machine");
      // The issuer's only resource scope is configured as the operator scope here: the operator's status view
      // lists every principal with runs.
      const status = await client.readResource("agent://status");
      expect(Object.keys(JSON.parse((status.contents[0] as { text: string }).text).principals)).toEqual([`jwt:${oidc.issuer}#machine`]);
    } finally {
      await client.close();
      delete process.env.SERVE_OAUTH_TEST_SECRET;
      delete process.env.AGENTD_OAUTH_STORE;
    }
  }, 60_000);
});
