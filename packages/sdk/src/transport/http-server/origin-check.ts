/**
 * DNS-rebinding defences (transport spec, "Security Warning"): `Origin` validation (403 for a present,
 * disallowed Origin) and `Host` validation (a rebound name arrives with the attacker's host name).
 */

const LOOPBACK_NAMES = new Set(["localhost", "::1", "[::1]"]);

/** Whether `host` (a name or an IP literal, IPv6 with or without brackets) is a loopback address. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (LOOPBACK_NAMES.has(h)) return true;
  // 127.0.0.0/8, written as a dotted quad.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** `host` as it appears in a URL or a Host header: IPv6 literals in brackets. */
export function hostForUrl(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** Whether `host` binds every interface (then no single Host name can be expected). */
const isWildcard = (host: string) => host === "0.0.0.0" || host === "::" || host === "[::]";

/**
 * Build a Host header check. `null` from the result means "any Host" (only for a wildcard bind with no
 * configured list: TLS and auth are mandatory there and guard the endpoint).
 *
 * Entries with a port match exactly; entries without one match that name on any port.
 */
export function createHostCheck(
  allowed: string[] | undefined,
  bound: { hostname: string; port: number },
  /** The `host[:port]` of the public URL, allowed besides the defaults (not when `allowed` is given). */
  publicHost?: string,
): ((host: string | null) => boolean) | null {
  let list = allowed;
  if (!list) {
    if (isWildcard(bound.hostname)) return null;
    const p = bound.port;
    list = [`${hostForUrl(bound.hostname)}:${p}`, `localhost:${p}`, `127.0.0.1:${p}`, `[::1]:${p}`];
    if (publicHost) list.push(publicHost);
  }
  const exact = new Set<string>();
  const anyPort = new Set<string>();
  for (const entry of list) {
    const e = entry.toLowerCase();
    if (/:\d+$/.test(e) && !/^[^[]*:[^\]]*:/.test(e)) exact.add(e);
    else anyPort.add(hostForUrl(e));
  }
  return (host) => {
    if (host === null) return false;
    const h = host.toLowerCase();
    if (exact.has(h)) return true;
    return anyPort.has(h.replace(/:\d+$/, ""));
  };
}

/**
 * Build an Origin check. A request without `Origin` (not a browser) always passes; browsers always send it
 * on cross-origin requests, which is what a rebinding attack needs. Default: loopback origins only.
 */
export function createOriginCheck(allowed: string[] | undefined): (origin: string | null) => boolean {
  const set = allowed ? new Set(allowed.map(normalizeOrigin).filter((o): o is string => o !== null)) : null;
  return (origin) => {
    if (origin === null) return true;
    const o = normalizeOrigin(origin);
    if (o === null) return false; // "null" (sandboxed frames, file:) and garbage
    if (set) return set.has(o);
    const host = new URL(o).hostname;
    return isLoopbackHost(host);
  };
}

function normalizeOrigin(origin: string): string | null {
  if (!URL.canParse(origin)) return null;
  const u = new URL(origin);
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  return u.origin.toLowerCase();
}
