/**
 * `serve.behindProxy` (and `--behind-proxy`, `--forwarded-client-cert` over it) from a configuration to the
 * HTTP server's options: a bad address is named before anything else is judged, and a list of proxies that
 * holds every address is refused together with forwarded client certificates.
 */
import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../config/load.ts";
import { httpServeOptionsFromConfig } from "./serve-options-from-config.ts";

describe("serve.behindProxy", () => {
  test("a list that holds every IPv4 or IPv6 address, with forwarded client certificates, is refused in the file and by the flags", async () => {
    for (const open of [["0.0.0.0/0"], ["::/0"], ["::ffff:0:0/96"], ["10.0.0.0/8", "0.0.0.0/1", "128.0.0.0/1"]]) {
      const inFile = parseConfig({ serve: { http: "0.0.0.0:8080", behindProxy: { trustedProxies: open, forwardedClientCert: true } } }, {});
      await expect(httpServeOptionsFromConfig(inFile)).rejects.toThrow(
        `refusing --behind-proxy ${open.join(",")} with --forwarded-client-cert: it holds every IPv`,
      );
      const byFlags = parseConfig({ serve: {} }, {});
      await expect(
        httpServeOptionsFromConfig(byFlags, { listen: "0.0.0.0:8080", trustedProxies: open, forwardedClientCert: true }),
      ).rejects.toThrow("so any client could name its own certificate; list only the proxies' addresses");
    }
    const narrow = parseConfig(
      { serve: { http: "0.0.0.0:8080", behindProxy: { trustedProxies: ["127.0.0.6"], forwardedClientCert: true } } },
      {},
    );
    expect((await httpServeOptionsFromConfig(narrow))?.behindProxy).toEqual({ trustedProxies: ["127.0.0.6"], forwardedClientCert: true });
  });

  test("a bad address without auth is named, not taken for missing auth", async () => {
    const config = parseConfig({ serve: {} }, {});
    await expect(httpServeOptionsFromConfig(config, { listen: "0.0.0.0:8080", trustedProxies: ["10.0.0.0/33"] })).rejects.toThrow(
      'behindProxy.trustedProxies[0] "10.0.0.0/33" is not an IP address or CIDR range',
    );
    await expect(httpServeOptionsFromConfig(config, { listen: "0.0.0.0:8080", trustedProxies: ["10.0.0.0/8"] })).rejects.toThrow(
      "behind a proxy without auth",
    );
  });
});
