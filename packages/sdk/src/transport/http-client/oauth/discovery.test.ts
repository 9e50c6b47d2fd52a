import { describe, expect, test } from "bun:test";
import { authServerMetadataUrls, canonicalResource, resourceMetadataUrls } from "./discovery.ts";
import { bearerChallenge, challengeScopes } from "./www-authenticate.ts";

const hrefs = (urls: URL[]) => urls.map((u) => u.href);

describe("discovery locations", () => {
  test("protected-resource metadata: the challenge's URL, then path-inserted, then root", () => {
    expect(hrefs(resourceMetadataUrls(new URL("https://r.example/api/mcp"), "https://r.example/custom.json"))).toEqual([
      "https://r.example/custom.json",
      "https://r.example/.well-known/oauth-protected-resource/api/mcp",
      "https://r.example/.well-known/oauth-protected-resource",
    ]);
    expect(hrefs(resourceMetadataUrls(new URL("https://r.example/")))).toEqual(["https://r.example/.well-known/oauth-protected-resource"]);
  });

  test("authorization-server metadata: RFC 8414 and OpenID, path insertion before appending", () => {
    expect(hrefs(authServerMetadataUrls(new URL("https://as.example/tenant1")))).toEqual([
      "https://as.example/.well-known/oauth-authorization-server/tenant1",
      "https://as.example/.well-known/openid-configuration/tenant1",
      "https://as.example/tenant1/.well-known/openid-configuration",
    ]);
    expect(hrefs(authServerMetadataUrls(new URL("https://as.example")))).toEqual([
      "https://as.example/.well-known/oauth-authorization-server",
      "https://as.example/.well-known/openid-configuration",
    ]);
  });

  test("canonical resource: no fragment, no query, no lone trailing slash", () => {
    expect(canonicalResource(new URL("HTTPS://R.example/mcp?x=1#f"))).toBe("https://r.example/mcp");
    expect(canonicalResource(new URL("https://r.example/"))).toBe("https://r.example");
  });
});

describe("WWW-Authenticate", () => {
  test("reads the Bearer challenge's parameters, quoted or not, among other schemes", () => {
    const p = bearerChallenge(
      'Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://r/.well-known/x"',
    );
    expect(p).toEqual({ error: "insufficient_scope", scope: "a b", resource_metadata: "https://r/.well-known/x" });
    expect(challengeScopes(p)).toEqual(["a", "b"]);
    expect(bearerChallenge('Bearer realm="a\\"b", Basic realm=y')).toEqual({ realm: 'a"b' });
    expect(bearerChallenge("Basic realm=x")).toEqual({});
    expect(challengeScopes(bearerChallenge("Bearer"))).toBeUndefined();
  });
});
