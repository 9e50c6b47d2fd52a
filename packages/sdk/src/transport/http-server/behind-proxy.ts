/**
 * Serving behind a reverse proxy that terminates TLS (an ingress controller, a load balancer, a service
 * mesh's sidecar). What such a proxy says about the client — the scheme and host it reached
 * (`Forwarded`, RFC 7239; `X-Forwarded-Proto` / `X-Forwarded-Host`) and, for a mesh, the client's
 * certificate (`X-Forwarded-Client-Cert`, Envoy's format) — is believed only when the request's peer
 * address (the socket's remote address, from the runtime adapter) is one of the configured proxies. From anyone else those headers are
 * ignored: a client that reaches the pod directly cannot claim a certificate or a public URL.
 *
 * Where several proxies appended to a header, the last entry is the one the proxy next to us wrote, and the
 * only one it vouches for. `Forwarded` and `X-Forwarded-Client-Cert` are read strictly (forwarded-list.ts):
 * from a trusted proxy, a malformed one (an unterminated quote, a bad escape, a key given twice in one
 * element) is reported and the request refused with 400, since the client's own text could have swallowed
 * the proxy's element.
 */
import { nodeNet } from "../../_internal/node-builtins.ts";
import { AgentdError } from "../../wire/errors.ts";
import { readForwardedCert } from "./forwarded-client-cert.ts";
import { parseForwardedList } from "./forwarded-list.ts";
import { everyAddressCovered, parseTrustedProxies } from "./proxy-ranges.ts";

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
  /** Why a forwarded header is malformed (the request is refused): which header and where, never its text. */
  malformed?: string;
}

/** A checked proxy configuration: `factsOf(headers, peer)` gives what to believe of one request. */
export interface ProxyTrust {
  forwardedClientCert: boolean;
  factsOf(headers: Headers, peer: string | undefined): ForwardedFacts;
}

const invalid = (message: string) => new AgentdError("E_CONFIG_INVALID", message);

/**
 * Check the options (one line naming the bad entry) and build the trust check. Refused: a list of proxies
 * that holds every IPv4 or every IPv6 address together with forwarded client certificates — every client
 * would be believed about its own certificate.
 */
export function createProxyTrust(o: BehindProxyOptions): ProxyTrust {
  const { list, ranges } = parseTrustedProxies(o.trustedProxies);
  const { isIP } = nodeNet();
  const forwardedClientCert = o.forwardedClientCert === true;
  const open = forwardedClientCert ? everyAddressCovered(ranges) : undefined;
  if (open)
    throw invalid(
      `http server: behindProxy.trustedProxies holds ${open}, so with forwardedClientCert any client could name its own certificate: list only the proxies' addresses, e.g. 10.0.0.0/8 or 127.0.0.6`,
    );
  const trusted = (peer: string): boolean => {
    const family = isIP(peer);
    // BlockList matches IPv4-mapped IPv6 peers (::ffff:10.1.2.3, a dual-stack socket's view) against IPv4 rules.
    return family !== 0 && list.check(peer, family === 6 ? "ipv6" : "ipv4");
  };
  const NONE: ForwardedFacts = Object.freeze({});
  return {
    forwardedClientCert,
    factsOf(headers, peer) {
      if (peer === undefined || !trusted(peer)) return NONE;
      const origin = forwardedOrigin(headers);
      if ("error" in origin) return { malformed: origin.error };
      const xfcc = forwardedClientCert ? headers.get("x-forwarded-client-cert") : null;
      const cert = xfcc ? readForwardedCert(xfcc) : undefined;
      if (cert && !cert.ok) return { malformed: cert.error };
      const facts: ForwardedFacts = {};
      if (origin.origin) facts.origin = origin.origin;
      if (cert?.principal) facts.clientCert = cert.principal;
      return facts;
    },
  };
}

/** A host as a proxy may forward it: a name or IPv4 literal with an optional port, or a bracketed IPv6 literal. */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin the client reached: `Forwarded`'s last element (`proto=`, `host=`), else the last values of
 * `X-Forwarded-Proto` and `X-Forwarded-Host`. Both a scheme (http or https) and a well-formed host are
 * needed; anything else gives none (the bound address is used). A malformed `Forwarded` (RFC 7239 read
 * strictly, a parameter at most once per element as §4 says) gives the error instead.
 */
export function forwardedOrigin(headers: Headers): { origin?: string } | { error: string } {
  let proto: string | undefined;
  let host: string | undefined;
  const forwarded = headers.get("forwarded");
  if (forwarded) {
    const parsed = parseForwardedList(forwarded);
    if (!parsed.ok) return { error: `malformed Forwarded header: ${parsed.error}` };
    const last = parsed.elements.at(-1)!;
    proto = last.get("proto")?.[0]?.toLowerCase();
    host = last.get("host")?.[0];
  } else {
    proto = headers.get("x-forwarded-proto")?.split(",").at(-1)?.trim().toLowerCase();
    host = headers.get("x-forwarded-host")?.split(",").at(-1)?.trim();
  }
  if ((proto !== "https" && proto !== "http") || !host || !HOST.test(host)) return {};
  return { origin: `${proto}://${host.toLowerCase()}` };
}
