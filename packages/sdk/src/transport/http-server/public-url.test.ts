/**
 * The public URL: what clients reach (a load balancer's name, or a host for a server bound to 0.0.0.0) is
 * what the RFC 9728 metadata and the 401 challenge advertise, never the bound address.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createResponder, initializeRequest, post } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer, type StreamableHttpServerOptions } from "./index.ts";

const TOKEN = "tok-public-0123456789abcdef";
const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Partial<StreamableHttpServerOptions>) {
  const server = await createStreamableHttpServer({ onsession: createResponder().onsession, auth: { bearerTokens: [TOKEN] }, ...options });
  servers.push(server);
  return server;
}

describe("publicUrl", () => {
  test("the 401 challenge and the protected-resource metadata name the public URL", async () => {
    const server = await start({ publicUrl: "https://agentd.example.com/mcp" });
    const refused = await post(server.url, initializeRequest());
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="https://agentd.example.com/.well-known/oauth-protected-resource"`,
    );
    const metadata = await (await fetch(new URL("/.well-known/oauth-protected-resource", server.url))).json();
    expect(metadata).toMatchObject({ resource: "https://agentd.example.com/mcp", bearer_methods_supported: ["header"] });
    // The server itself still listens where it was bound.
    expect(server.url.hostname).toBe("127.0.0.1");
  });

  test("requests arriving with the public host pass the Host check; other hosts still do not", async () => {
    const server = await start({ publicUrl: "https://agentd.example.com/mcp" });
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await post(server.url, initializeRequest(), { ...auth, host: "agentd.example.com" })).status).toBe(200);
    expect((await post(server.url, initializeRequest(), { ...auth, host: "evil.example" })).status).toBe(403);
  });

  test("without it, the bound address is advertised", async () => {
    const server = await start({});
    const metadata = await (await fetch(new URL("/.well-known/oauth-protected-resource", server.url))).json();
    expect(metadata.resource).toBe(server.url.href);
  });

  test("a malformed public URL is refused with one line", async () => {
    for (const bad of ["agentd.example.com/mcp", "ftp://agentd.example.com/mcp", "https://agentd.example.com/mcp?x=1"])
      await expect(start({ publicUrl: bad })).rejects.toThrow(/publicUrl .* must be an absolute http\(s\) URL/);
  });
});
