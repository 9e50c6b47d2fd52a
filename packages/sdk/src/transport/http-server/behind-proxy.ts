/**
 * Serving behind a reverse proxy that terminates TLS (an ingress controller, a load balancer, a service
 * mesh's sidecar). What such a proxy says about the client — the scheme and host it reached
 * (`Forwarded`, RFC 7239; `X-Forwarded-Proto` / `X-Forwarded-Host`) and, for a mesh, the client's
 * certificate (`X-Forwarded-Client-Cert`, Envoy's format) — is believed only when the request's peer
 * address (the socket's remote address, from the runtime adapter) is one of the configured proxies. From anyone else those headers are
 * ignored: a client that reaches the pod directly cannot claim a certificate or a public URL.
 *
 * Where several proxies appended to a header, the last entry is the one the proxy next to us wrote, and the
 * only one it vouches for.
 */
import { BlockList, isIP } from "node:net";
import { AgentdError } from "../../wire/errors.ts";
import { principalOfForwardedCert, splitOutsideQuotes, unquote } from "./forwarded-client-cert.ts";

/** What a configured proxy is trusted with. */
export interface BehindProxyOptions {
  /** Peer addresses of the proxies, as IP addresses or CIDR ranges (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`). */
  trustedProxies: string[];
  /**
   * Authenticate callers by the client certificate the proxy verified and forwarded in
   * `X-Forwarded-Client-Cert` (Envoy, Istio): the principal is `mtls:<Subject>`, else `mtls:<URI>` (a SPIFFE id).
   */
  forwardedClientCert?: boolean;
}

/** What a request's trusted proxy told us. */
export interface ForwardedFacts {
  /** `scheme://host[:port]` the client reached, when the proxy said so. */
  origin?: string;
  /** The forwarded client certificate's principal (without the `mtls:` scheme), when on and present. */
  clientCert?: string;
}

/** A checked proxy configuration: `factsOf(headers, peer)` gives what to believe of one request. */
export interface ProxyTrust {
  forwardedClientCert: boolean;
  factsOf(headers: Headers, peer: string | undefined): ForwardedFacts;
}

const invalid = (message: string) => new AgentdError("E_CONFIG_INVALID", message);

/** Check the options (one line naming the bad entry) and build the trust check. */
export function createProxyTrust(o: BehindProxyOptions): ProxyTrust {
  if (!Array.isArray(o.trustedProxies) || o.trustedProxies.length === 0)
    throw invalid("http server: behindProxy.trustedProxies must name the proxies' addresses, e.g. 10.0.0.0/8 or 127.0.0.1");
  const list = new BlockList();
  for (const [i, entry] of o.trustedProxies.entries()) {
    const [address, bits, extra] = String(entry).trim().split("/");
    const family = isIP(address ?? "");
    const prefix = bits === undefined ? undefined : Number(bits);
    const max = family === 6 ? 128 : 32;
    if (
      !family ||
      extra !== undefined ||
      (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= max)) ||
      bits === ""
    )
      throw invalid(`http server: behindProxy.trustedProxies[${i}] "${entry}" is not an IP address or CIDR range such as 10.0.0.0/8`);
    const type = family === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, prefix, type);
  }
  const trusted = (peer: string): boolean => {
    const family = isIP(peer);
    // BlockList matches IPv4-mapped IPv6 peers (::ffff:10.1.2.3, a dual-stack socket's view) against IPv4 rules.
    return family !== 0 && list.check(peer, family === 6 ? "ipv6" : "ipv4");
  };
  const forwardedClientCert = o.forwardedClientCert === true;
  const NONE: ForwardedFacts = Object.freeze({});
  return {
    forwardedClientCert,
    factsOf(headers, peer) {
      if (peer === undefined || !trusted(peer)) return NONE;
      const origin = forwardedOrigin(headers);
      const xfcc = forwardedClientCert ? headers.get("x-forwarded-client-cert") : null;
      const clientCert = xfcc ? principalOfForwardedCert(xfcc) : undefined;
      return { origin: origin || undefined, clientCert };
    },
  };
}

/** A host as a proxy may forward it: a name or IPv4 literal with an optional port, or a bracketed IPv6 literal. */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin the client reached: `Forwarded`'s last element (`proto=`, `host=`), else the last values of
 * `X-Forwarded-Proto` and `X-Forwarded-Host`. Both a scheme (http or https) and a well-formed host are
 * needed; anything else gives none (the bound address is used).
 */
export function forwardedOrigin(headers: Headers): string | undefined {
  let proto: string | undefined;
  let host: string | undefined;
  const forwarded = headers.get("forwarded");
  if (forwarded) {
    const last = splitOutsideQuotes(forwarded, ",").at(-1) ?? "";
    for (const pair of splitOutsideQuotes(last, ";")) {
      const eq = pair.indexOf("=");
      if (eq < 0) continue;
      const key = pair.slice(0, eq).trim().toLowerCase();
      const value = unquote(pair.slice(eq + 1).trim());
      if (key === "proto") proto = value.toLowerCase();
      else if (key === "host") host = value;
    }
  } else {
    proto = headers.get("x-forwarded-proto")?.split(",").at(-1)?.trim().toLowerCase();
    host = headers.get("x-forwarded-host")?.split(",").at(-1)?.trim();
  }
  if ((proto !== "https" && proto !== "http") || !host || !HOST.test(host)) return undefined;
  return `${proto}://${host.toLowerCase()}`;
}
