/**
 * Test fixture: a real MCP server (the official SDK's `McpServer` over its web-standard Streamable HTTP
 * transport, stateless) behind bearer-token checks done with `jose` against an OpenID provider's JWKS:
 * issuer, audience (this server's resource URL), expiry and signature. It publishes RFC 9728 metadata at
 * the path-inserted well-known location and answers 401 with `WWW-Authenticate: Bearer resource_metadata=…`.
 * Tool `whoami` returns the verified claims (sub, client_id, scope, aud) as JSON text.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";

/** A running protected server. */
export interface ProtectedMcp {
  url: string;
  /** Every Authorization header value seen on /mcp (to check what the client sent where). */
  authorizations: string[];
  /** Access tokens refused from now on as if revoked (401 `invalid_token`). */
  revoked: Set<string>;
  stop(): Promise<void>;
}

/** Start the server; `issuer` names the provider whose tokens it accepts. */
export function startProtectedMcp(issuer: () => string): ProtectedMcp {
  const authorizations: string[] = [];
  const revoked = new Set<string>();
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      const base = `http://127.0.0.1:${server.port}`;
      const resource = `${base}/mcp`;
      const prm = `${base}/.well-known/oauth-protected-resource/mcp`;
      if (url.pathname === "/.well-known/oauth-protected-resource/mcp")
        return Response.json({ resource, authorization_servers: [issuer()], scopes_supported: ["mcp:tools"] });
      if (url.pathname !== "/mcp") return new Response("not found", { status: 404 });
      const header = req.headers.get("authorization");
      if (header) authorizations.push(header);
      const refuse = (error?: string) =>
        new Response(JSON.stringify({ error: error ?? "unauthorized" }), {
          status: 401,
          headers: {
            "www-authenticate": `Bearer resource_metadata="${prm}"${error ? `, error="${error}"` : ""}`,
            "content-type": "application/json",
          },
        });
      if (!header?.startsWith("Bearer ")) return refuse();
      if (revoked.has(header.slice(7))) return refuse("invalid_token");
      let claims: JWTPayload;
      try {
        jwks ??= createRemoteJWKSet(new URL(`${issuer()}/jwks`));
        claims = (await jwtVerify(header.slice(7), jwks, { issuer: issuer(), audience: resource })).payload;
      } catch {
        return refuse("invalid_token");
      }
      const mcp = new McpServer({ name: "protected", version: "1.0.0" }, { capabilities: { tools: {} } });
      mcp.server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [{ name: "whoami", inputSchema: { type: "object" as const } }],
      }));
      mcp.server.setRequestHandler(CallToolRequestSchema, async () => ({
        content: [
          { type: "text", text: JSON.stringify({ sub: claims.sub, client_id: claims.client_id, scope: claims.scope, aud: claims.aud }) },
        ],
      }));
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await mcp.connect(transport);
      return transport.handleRequest(req);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/mcp`, authorizations, revoked, stop: () => server.stop(true) };
}
