/** What a proxy in front is believed about: forwarded origins, forwarded client certificates, who is a proxy. */
import { describe, expect, test } from "bun:test";
import { createProxyTrust, forwardedOrigin } from "./behind-proxy.ts";
import { principalOfForwardedCert } from "./forwarded-client-cert.ts";
import { resolveOptions } from "./options.ts";

const h = (o: Record<string, string>) => new Headers(o);

describe("forwardedOrigin", () => {
  test("RFC 7239 Forwarded: the last element (the proxy next to us), quoted values, case-insensitive keys", () => {
    expect(forwardedOrigin(h({ forwarded: 'for=1.2.3.4;proto=https;host="a.example.com"' }))).toBe("https://a.example.com");
    expect(forwardedOrigin(h({ forwarded: "proto=http;host=evil.example, Proto=https;Host=b.example.com:8443" }))).toBe(
      "https://b.example.com:8443",
    );
    expect(forwardedOrigin(h({ forwarded: 'for="[2001:db8::1]:443";proto=https;host="[2001:db8::2]"' }))).toBe("https://[2001:db8::2]");
  });

  test("X-Forwarded-Proto / -Host: the last value; Forwarded wins when both are sent", () => {
    expect(forwardedOrigin(h({ "x-forwarded-proto": "http, https", "x-forwarded-host": "x.example, agents.example.com" }))).toBe(
      "https://agents.example.com",
    );
    expect(
      forwardedOrigin(h({ forwarded: "proto=https;host=f.example", "x-forwarded-proto": "http", "x-forwarded-host": "x.example" })),
    ).toBe("https://f.example");
  });

  test("nothing usable without both a scheme and a well-formed host", () => {
    expect(forwardedOrigin(h({ "x-forwarded-host": "agents.example.com" }))).toBeUndefined();
    expect(forwardedOrigin(h({ "x-forwarded-proto": "https" }))).toBeUndefined();
    expect(forwardedOrigin(h({ "x-forwarded-proto": "ftp", "x-forwarded-host": "a.example" }))).toBeUndefined();
    expect(forwardedOrigin(h({ "x-forwarded-proto": "https", "x-forwarded-host": "a.example/path" }))).toBeUndefined();
    expect(forwardedOrigin(h({ "x-forwarded-proto": "https", "x-forwarded-host": "a.example@b.example" }))).toBeUndefined();
    expect(forwardedOrigin(h({}))).toBeUndefined();
  });
});

describe("principalOfForwardedCert (Envoy's X-Forwarded-Client-Cert)", () => {
  test("the subject, quoted with commas inside; the last element is the one the adjacent proxy verified", () => {
    expect(principalOfForwardedCert('By=spiffe://a;Hash=ab;Subject="CN=alice,O=ops";URI=spiffe://c')).toBe("CN=alice,O=ops");
    expect(principalOfForwardedCert('Hash=1;Subject="CN=mallory",Hash=2;Subject="CN=bob\\"s,O=x"')).toBe('CN=bob"s,O=x');
  });

  test("no subject: the URI SAN (a SPIFFE id), else the DNS SAN; nothing: none", () => {
    expect(principalOfForwardedCert("By=spiffe://cluster.local/ns/a/sa/agentd;Hash=ab;URI=spiffe://cluster.local/ns/a/sa/caller")).toBe(
      "spiffe://cluster.local/ns/a/sa/caller",
    );
    expect(principalOfForwardedCert("Hash=ab;DNS=caller.example;DNS=other.example")).toBe("caller.example");
    expect(principalOfForwardedCert("Hash=ab")).toBeUndefined();
    expect(principalOfForwardedCert('Subject=""')).toBeUndefined();
    expect(principalOfForwardedCert("Subject=CN=a\u0001b")).toBeUndefined();
  });
});

describe("createProxyTrust", () => {
  const trust = createProxyTrust({ trustedProxies: ["10.0.0.0/8", "fd00::/8", "127.0.0.6"], forwardedClientCert: true });
  const headers = h({
    "x-forwarded-proto": "https",
    "x-forwarded-host": "agents.example.com",
    "x-forwarded-client-cert": 'Subject="CN=alice"',
  });

  test("believes a configured proxy's headers (IPv4, IPv6, IPv4-mapped IPv6 peers)", () => {
    for (const peer of ["10.1.2.3", "fd00::1", "::ffff:10.9.9.9", "127.0.0.6"])
      expect(trust.factsOf(headers, peer)).toEqual({ origin: "https://agents.example.com", clientCert: "CN=alice" });
  });

  test("ignores everyone else's", () => {
    for (const peer of ["11.0.0.1", "127.0.0.1", "fe80::1", "::ffff:11.0.0.1", undefined]) expect(trust.factsOf(headers, peer)).toEqual({});
  });

  test("the client certificate only when asked for", () => {
    expect(createProxyTrust({ trustedProxies: ["10.0.0.0/8"] }).factsOf(headers, "10.0.0.1")).toEqual({
      origin: "https://agents.example.com",
    });
  });

  test("a malformed entry is one line naming it", () => {
    for (const bad of ["10.0.0.0/33", "10.0.0", "example.com", "10.0.0.0/", "fd00::/129", "1.2.3.4/8/1"])
      expect(() => createProxyTrust({ trustedProxies: [bad] })).toThrow(
        `behindProxy.trustedProxies[0] "${bad}" is not an IP address or CIDR range`,
      );
    expect(() => createProxyTrust({ trustedProxies: [] })).toThrow("must name the proxies' addresses");
  });
});

describe("resolveOptions behind a proxy", () => {
  const onsession = () => {};
  test("a non-loopback address without TLS is served behind a proxy with auth, refused without auth or without the mode", () => {
    expect(() =>
      resolveOptions({
        onsession,
        hostname: "0.0.0.0",
        behindProxy: { trustedProxies: ["10.0.0.0/8"] },
        auth: { bearerTokens: ["t".repeat(20)] },
      }),
    ).not.toThrow();
    expect(() =>
      resolveOptions({ onsession, hostname: "0.0.0.0", behindProxy: { trustedProxies: ["10.0.0.0/8"], forwardedClientCert: true } }),
    ).not.toThrow();
    expect(() => resolveOptions({ onsession, hostname: "0.0.0.0", behindProxy: { trustedProxies: ["10.0.0.0/8"] } })).toThrow(
      "behind a proxy without auth",
    );
    expect(() => resolveOptions({ onsession, hostname: "0.0.0.0", auth: { bearerTokens: ["t".repeat(20)] } })).toThrow(
      "refusing to bind 0.0.0.0",
    );
  });
});
