/**
 * The addresses of the proxies in front (`behindProxy.trustedProxies`): checked, turned into the list a
 * request's peer address is matched against, and measured for the one mistake that undoes the whole mode.
 *
 * A list that holds every IPv4 address (`0.0.0.0/0`, `::/0`, `::ffff:0:0/96`, or halves that add up to it)
 * or every IPv6 address believes every client, so with forwarded client certificates any client names its
 * own certificate (`X-Forwarded-Client-Cert: Subject="CN=admin"`) and is that principal. Coverage is
 * computed over the union of the entries, as intervals, and an IPv6 range over the IPv4-mapped block
 * (`::ffff:0:0/96`) counts for IPv4: the runtime's list matches IPv4 peers against it.
 */
import type { BlockList } from "node:net";
import { nodeNet } from "../../_internal/node-builtins.ts";
import { AgentdError } from "../../wire/errors.ts";

const invalid = (message: string) => new AgentdError("E_CONFIG_INVALID", message);

interface Range {
  family: 4 | 6;
  first: bigint;
  last: bigint;
}

/** `10.1.2.3` or an IPv6 literal (with `::` and a dotted IPv4 tail) as a number. */
function addressValue(address: string, family: 4 | 6): bigint {
  const v4 = (s: string) => s.split(".").reduce((n, octet) => (n << 8n) | BigInt(Number(octet)), 0n);
  if (family === 4) return v4(address);
  const colon = address.lastIndexOf(":");
  let text = address;
  if (address.includes(".", colon)) {
    const n = v4(address.slice(colon + 1));
    text = `${address.slice(0, colon + 1)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const words = (s: string) => (s === "" ? [] : s.split(":").map((w) => BigInt(Number.parseInt(w, 16))));
  const left = words(head);
  const right = rest === undefined ? [] : words(rest);
  const middle = rest === undefined ? [] : Array<bigint>(8 - left.length - right.length).fill(0n);
  return [...left, ...middle, ...right].reduce((n, w) => (n << 16n) | w, 0n);
}

/** Check the entries (one line naming a bad one) and build the list peers are matched against. */
export function parseTrustedProxies(entries: readonly string[]): { list: BlockList; ranges: Range[] } {
  if (!Array.isArray(entries) || entries.length === 0)
    throw invalid("http server: behindProxy.trustedProxies must name the proxies' addresses, e.g. 10.0.0.0/8 or 127.0.0.1");
  const { BlockList, isIP } = nodeNet();
  const list = new BlockList();
  const ranges: Range[] = [];
  for (const [i, entry] of entries.entries()) {
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
    const size = 1n << BigInt(max - (prefix ?? max));
    const first = (addressValue(address!, family as 4 | 6) / size) * size;
    ranges.push({ family: family as 4 | 6, first, last: first + size - 1n });
  }
  return { list, ranges };
}

const MAPPED_FIRST = 0xffffn << 32n;
const MAPPED_LAST = MAPPED_FIRST + 0xffffffffn;

/** Whether sorted-or-not intervals cover `[0, last]` together. */
function covers(intervals: { first: bigint; last: bigint }[], last: bigint): boolean {
  let reached = -1n;
  for (const r of [...intervals].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0))) {
    if (r.first > reached + 1n) return false;
    if (r.last > reached) reached = r.last;
    if (reached >= last) return true;
  }
  return reached >= last;
}

/** `"every IPv4 address"` or `"every IPv6 address"` when the entries together hold all of them, else undefined. */
export function everyAddressCovered(ranges: readonly Range[]): string | undefined {
  const v4 = ranges.filter((r) => r.family === 4).map(({ first, last }) => ({ first, last }));
  for (const r of ranges)
    if (r.family === 6 && r.first <= MAPPED_LAST && r.last >= MAPPED_FIRST)
      v4.push({
        first: (r.first > MAPPED_FIRST ? r.first : MAPPED_FIRST) - MAPPED_FIRST,
        last: (r.last < MAPPED_LAST ? r.last : MAPPED_LAST) - MAPPED_FIRST,
      });
  if (covers(v4, 0xffffffffn)) return "every IPv4 address";
  if (
    covers(
      ranges.filter((r) => r.family === 6),
      (1n << 128n) - 1n,
    )
  )
    return "every IPv6 address";
  return undefined;
}
