import { describe, expect, test } from "bun:test";
import { createHostCheck, createOriginCheck, hostForUrl, isLoopbackHost } from "./origin-check.ts";

describe("isLoopbackHost", () => {
  test("127/8, ::1 and localhost only", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST"]) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ["0.0.0.0", "::", "10.0.0.1", "127.0.0.1.evil.test", "localhost.evil.test", "128.0.0.1"])
      expect(isLoopbackHost(h)).toBe(false);
  });
  test("IPv6 literals get brackets in URLs", () => {
    expect(hostForUrl("::1")).toBe("[::1]");
    expect(hostForUrl("127.0.0.1")).toBe("127.0.0.1");
  });
});

describe("createHostCheck", () => {
  test("defaults to the bound address and loopback names on the bound port", () => {
    const ok = createHostCheck(undefined, { hostname: "127.0.0.1", port: 4000 })!;
    for (const h of ["127.0.0.1:4000", "localhost:4000", "[::1]:4000", "LOCALHOST:4000"]) expect(ok(h)).toBe(true);
    for (const h of ["127.0.0.1:4001", "evil.test:4000", "localhost", null]) expect(ok(h)).toBe(false);
  });
  test("a wildcard bind without a list does not check Host", () => {
    expect(createHostCheck(undefined, { hostname: "0.0.0.0", port: 1 })).toBeNull();
  });
  test("entries with a port match exactly, without one any port", () => {
    const ok = createHostCheck(["api.example:443", "mcp.internal", "::1"], { hostname: "0.0.0.0", port: 1 })!;
    expect(ok("api.example:443")).toBe(true);
    expect(ok("api.example:444")).toBe(false);
    expect(ok("mcp.internal:9")).toBe(true);
    expect(ok("mcp.internal")).toBe(true);
    expect(ok("[::1]:80")).toBe(true);
  });
});

describe("createOriginCheck", () => {
  test("absent passes; loopback origins pass by default; others and garbage fail", () => {
    const ok = createOriginCheck(undefined);
    expect(ok(null)).toBe(true);
    for (const o of ["http://localhost:3000", "https://127.0.0.1", "http://[::1]:8080"]) expect(ok(o)).toBe(true);
    for (const o of ["null", "https://evil.test", "http://localhost.evil.test", "file:///x", "not a url"]) expect(ok(o)).toBe(false);
  });
  test("a configured list is exact (scheme, host and port) and case-insensitive", () => {
    const ok = createOriginCheck(["https://App.Example"]);
    expect(ok("https://app.example")).toBe(true);
    expect(ok("https://app.example:443")).toBe(true);
    expect(ok("http://app.example")).toBe(false);
    expect(ok("http://localhost:3000")).toBe(false);
  });
});
