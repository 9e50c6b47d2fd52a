/** What a proxy in front is believed about: forwarded origins, forwarded client certificates, who is a proxy. */
import { describe, expect, test } from "bun:test";
import { createProxyTrust, forwardedOrigin } from "./behind-proxy.ts";
import { readForwardedCert } from "./forwarded-client-cert.ts";
import { resolveOptions } from "./options.ts";

const h = (o: Record<string, string>) => new Headers(o);
const origin = (headers: Headers) => {
  const r = forwardedOrigin(headers);
  return "error" in r ? r : r.origin;
};
const principalOfForwardedCert = (header: string) => {
  const r = readForwardedCert(header);
  return r.ok ? r.principal : r;
};

describe("forwardedOrigin", () => {
  test("RFC 7239 Forwarded: the last element (the proxy next to us), quoted values, case-insensitive keys", () => {
    expect(origin(h({ forwarded: 'for=1.2.3.4;proto=https;host="a.example.com"' }))).toBe("https://a.example.com");
    expect(origin(h({ forwarded: "proto=http;host=evil.example, Proto=https;Host=b.example.com:8443" }))).toBe(
      "https://b.example.com:8443",
    );
    expect(origin(h({ forwarded: 'for="[2001:db8::1]:443";proto=https;host="[2001:db8::2]"' }))).toBe("https://[2001:db8::2]");
  });

  test("X-Forwarded-Proto / -Host: the last value; Forwarded wins when both are sent", () => {
    expect(origin(h({ "x-forwarded-proto": "http, https", "x-forwarded-host": "x.example, agents.example.com" }))).toBe(
      "https://agents.example.com",
    );
    expect(origin(h({ forwarded: "proto=https;host=f.example", "x-forwarded-proto": "http", "x-forwarded-host": "x.example" }))).toBe(
      "https://f.example",
    );
  });

  test("nothing usable without both a scheme and a well-formed host", () => {
    expect(origin(h({ "x-forwarded-host": "agents.example.com" }))).toBeUndefined();
    expect(origin(h({ "x-forwarded-proto": "https" }))).toBeUndefined();
    expect(origin(h({ "x-forwarded-proto": "ftp", "x-forwarded-host": "a.example" }))).toBeUndefined();
    expect(origin(h({ "x-forwarded-proto": "https", "x-forwarded-host": "a.example/path" }))).toBeUndefined();
    expect(origin(h({ "x-forwarded-proto": "https", "x-forwarded-host": "a.example@b.example" }))).toBeUndefined();
    expect(origin(h({}))).toBeUndefined();
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
    // A control character is no principal; in a bare value it makes the header malformed.
    expect(principalOfForwardedCert('Subject="CN=a\tb"')).toBeUndefined();
    expect(principalOfForwardedCert("Subject=CN=a\u0001b")).toEqual({
      ok: false,
      error: "malformed X-Forwarded-Client-Cert header: text after a value at character 13",
    });
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

  test("a client's text before the proxy's element is no identity: an open quote or a repeated key refuses the request", () => {
    // Envoy APPEND_FORWARD / Istio: the proxy's element goes after whatever the client sent.
    const appended = [
      'By=spiffe://cluster.local/ns/agents/sa/agentd;Hash=0a1b;Subject="";URI=spiffe://cluster.local/ns/agents/sa/caller',
      'Hash=0a1b;Subject="CN=bob"',
    ];
    for (const proxy of appended)
      for (const client of ['Subject=CN=admin;URI=",', 'Subject="CN=admin";Subject="']) {
        const facts = trust.factsOf(h({ "x-forwarded-client-cert": `${client},${proxy}` }), "10.0.0.1");
        expect(facts.clientCert).toBeUndefined();
        expect(facts.malformed).toStartWith("malformed X-Forwarded-Client-Cert header: ");
      }
    // A well-formed element of the client's is not the last one: the proxy's is believed.
    expect(trust.factsOf(h({ "x-forwarded-client-cert": `Subject="CN=admin",${appended[1]}` }), "10.0.0.1").clientCert).toBe("CN=bob");
  });

  test("a smuggled quote in Forwarded makes no public URL: the request is refused", () => {
    const facts = trust.factsOf(
      h({ forwarded: 'host=evil.example;proto=https;for=", for=198.51.100.7;proto=https;host=agents.example.com' }),
      "10.0.0.1",
    );
    expect(facts.origin).toBeUndefined();
    expect(facts.malformed).toBe("malformed Forwarded header: an unterminated quoted string at character 35");
    // RFC 7239 §4: a parameter at most once per element.
    expect(trust.factsOf(h({ forwarded: "host=evil.example;proto=https;host=agents.example.com" }), "10.0.0.1").malformed).toContain(
      'the key "host" a second time',
    );
    // From a peer that is not a proxy the header is not read at all.
    expect(trust.factsOf(h({ forwarded: 'host="evil' }), "11.0.0.1")).toEqual({});
  });

  test("proxies that hold every IPv4 or IPv6 address are refused with forwarded client certificates", () => {
    for (const open of [
      ["0.0.0.0/0"],
      ["::/0"],
      ["::ffff:0:0/96"],
      ["0.0.0.0/1", "128.0.0.0/1"],
      ["::/1", "8000::/1"],
      ["::ffff:0.0.0.0/97", "128.0.0.0/1"],
      ["::/1"],
    ]) {
      expect(() => createProxyTrust({ trustedProxies: open, forwardedClientCert: true })).toThrow(/holds every IPv[46] address/);
      // Without forwarded certificates a proxy is believed about the public URL only: allowed.
      expect(() => createProxyTrust({ trustedProxies: open })).not.toThrow();
    }
    expect(() => createProxyTrust({ trustedProxies: ["0.0.0.0/0"], forwardedClientCert: true })).toThrow(
      "behindProxy.trustedProxies holds every IPv4 address, so with forwardedClientCert any client could name its own certificate",
    );
    for (const narrow of [
      ["0.0.0.0/1"],
      ["10.0.0.0/8", "fd00::/8"],
      ["8000::/1", "4000::/2"],
      ["::ffff:0:0/97"],
      ["255.255.255.255", "0.0.0.0"],
    ])
      expect(() => createProxyTrust({ trustedProxies: narrow, forwardedClientCert: true })).not.toThrow();
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
