/**
 * X.509 distinguished names as principals. A client certificate's subject becomes its principal, and an
 * operator names principals in configuration, so two different subjects must never give the same string
 * and the string an operator writes must mean exactly one subject.
 *
 * The subject is read from the certificate's DER (`getPeerCertificate().raw`), not from the parsed
 * `subject` object: that object merges a multi-valued RDN (`CN=bob+O=ops`) with two RDNs and loses the
 * order of the RDNs. The string form is RFC 4514's: RDNs last-to-first (what `openssl x509 -noout -subject
 * -nameopt RFC2253` prints), `,` between RDNs, `+` inside a multi-valued RDN, and every special character
 * of a value escaped (`CN=bob\,O=ops` is one CN holding a comma). The canonical form fixes what RFC 4514
 * leaves open: known attribute types by their short name (else the dotted OID), the attributes of a
 * multi-valued RDN sorted by OID then value, non-ASCII characters as themselves, control characters as
 * `\XX`, and values of a non-string type as `#` and the hex of their DER. Parsing then formatting any
 * RFC 4514 string (openssl's `\C3\A9` escapes, `cn=` in lower case, a multi-valued RDN in any order) gives
 * the canonical form, so a configured principal and a certificate's compare equal exactly when the
 * subjects are the same.
 */

/** One attribute of an RDN: its OID and its value, as text or (a non-string type) as `#hex` of its DER. */
export interface NameAttribute {
  oid: string;
  value: { text: string } | { der: string };
}

/** A name: its RDNs in RFC 4514 order (the last RDN of the DER first), each a set of attributes. */
export type DistinguishedName = NameAttribute[][];

/** Short names: RFC 4514 §3 first, then the ones openssl prints. */
const NAMES: Record<string, string> = {
  CN: "2.5.4.3",
  L: "2.5.4.7",
  ST: "2.5.4.8",
  O: "2.5.4.10",
  OU: "2.5.4.11",
  C: "2.5.4.6",
  STREET: "2.5.4.9",
  DC: "0.9.2342.19200300.100.1.25",
  UID: "0.9.2342.19200300.100.1.1",
  emailAddress: "1.2.840.113549.1.9.1",
  serialNumber: "2.5.4.5",
  SN: "2.5.4.4",
  GN: "2.5.4.42",
  title: "2.5.4.12",
  initials: "2.5.4.43",
  generationQualifier: "2.5.4.44",
  dnQualifier: "2.5.4.46",
  pseudonym: "2.5.4.65",
  postalCode: "2.5.4.17",
  businessCategory: "2.5.4.15",
  name: "2.5.4.41",
  description: "2.5.4.13",
  organizationIdentifier: "2.5.4.97",
};
const NAME_OF = new Map(Object.entries(NAMES).map(([n, oid]) => [oid, n]));
const OID_OF = new Map(Object.entries(NAMES).map(([n, oid]) => [n.toLowerCase(), oid]));

// ---------------------------------------------------------------------------------------------- DER

interface Tlv {
  tag: number;
  start: number;
  body: number;
  end: number;
}

function tlv(der: Uint8Array, at: number, limit: number): Tlv {
  if (at + 2 > limit) throw new Error("truncated DER");
  const tag = der[at]!;
  if ((tag & 0x1f) === 0x1f) throw new Error("multi-byte DER tags are not used in names");
  let len = der[at + 1]!;
  let body = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || body + n > limit) throw new Error("bad DER length");
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[body + i]!;
    body += n;
  }
  if (body + len > limit) throw new Error("DER value overruns its container");
  return { tag, start: at, body, end: body + len };
}

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.body; at < parent.end; ) {
    const t = tlv(der, at, parent.end);
    out.push(t);
    at = t.end;
  }
  return out;
}

function oidText(bytes: Uint8Array): string {
  const arcs: number[] = [];
  let n = 0;
  for (const b of bytes) {
    n = n * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      arcs.push(n);
      n = 0;
    }
  }
  if (arcs.length === 0 || bytes[bytes.length - 1]! & 0x80) throw new Error("bad OID");
  const first = arcs[0]!;
  const head = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80];
  return [...head, ...arcs.slice(1)].join(".");
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** The text of a string-typed value, or undefined when the type is not a string or the bytes are not valid. */
function stringValue(tag: number, bytes: Uint8Array): string | undefined {
  const ascii = () => (bytes.every((b) => b < 0x80) ? Buffer.from(bytes).toString("latin1") : undefined);
  try {
    switch (tag) {
      case 0x0c:
        return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes); // UTF8String
      case 0x12:
      case 0x13:
      case 0x16:
      case 0x1a:
        return ascii(); // Numeric, Printable, IA5, Visible
      case 0x14:
        return Buffer.from(bytes).toString("latin1"); // TeletexString, read as Latin-1 like openssl
      case 0x1e:
        return new TextDecoder("utf-16be", { fatal: true, ignoreBOM: true }).decode(bytes); // BMPString
      case 0x1c: {
        // UniversalString (UCS-4)
        if (bytes.length % 4) return undefined;
        let s = "";
        for (let i = 0; i < bytes.length; i += 4) {
          const cp = ((bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!) >>> 0;
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return undefined; // not a character: shown as #hex
          s += String.fromCodePoint(cp);
        }
        return s;
      }
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

/** Read a DER `Name` (SEQUENCE OF SET OF AttributeTypeAndValue). Throws on malformed input. */
export function readDerName(der: Uint8Array, name: Tlv): DistinguishedName {
  if (name.tag !== 0x30) throw new Error("a Name is a SEQUENCE");
  const rdns = children(der, name).map((set) => {
    if (set.tag !== 0x31) throw new Error("an RDN is a SET");
    const attrs = children(der, set).map((ava): NameAttribute => {
      const [type, value, ...rest] = ava.tag === 0x30 ? children(der, ava) : [];
      if (!type || !value || rest.length || type.tag !== 0x06) throw new Error("bad AttributeTypeAndValue");
      const text = stringValue(value.tag, der.subarray(value.body, value.end));
      return {
        oid: oidText(der.subarray(type.body, type.end)),
        value: text === undefined ? { der: hex(der.subarray(value.start, value.end)) } : { text },
      };
    });
    if (attrs.length === 0) throw new Error("an empty RDN");
    return attrs;
  });
  return rdns.reverse();
}

/** The subject of a DER certificate (RFC 5280 §4.1). Throws on malformed input. */
export function certificateSubject(cert: Uint8Array): DistinguishedName {
  const outer = tlv(cert, 0, cert.length);
  const [tbs] = outer.tag === 0x30 ? children(cert, outer) : [];
  if (tbs?.tag !== 0x30) throw new Error("not a certificate");
  const fields = children(cert, tbs);
  // version [0] is optional; then serialNumber, signature, issuer, validity, subject.
  const subject = fields[fields[0]?.tag === 0xa0 ? 5 : 4];
  if (!subject) throw new Error("a certificate without a subject");
  return readDerName(cert, subject);
}

// ---------------------------------------------------------------------------------------------- text

const compareOid = (a: string, b: string) => {
  const x = a.split(".").map(Number);
  const y = b.split(".").map(Number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

function escapeValue(text: string): string {
  let out = "";
  const chars = [...text];
  chars.forEach((ch, i) => {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) out += `\\${code.toString(16).toUpperCase().padStart(2, "0")}`;
    else if (',+"\\<>;'.includes(ch) || (i === 0 && (ch === " " || ch === "#")) || (i === chars.length - 1 && ch === " ")) out += `\\${ch}`;
    else out += ch;
  });
  return out;
}

const formatAttribute = (a: NameAttribute) =>
  `${NAME_OF.get(a.oid) ?? a.oid}=${"text" in a.value ? escapeValue(a.value.text) : `#${a.value.der}`}`;

/** The canonical string of a name (see the module header). Empty for an empty name. */
export function formatDistinguishedName(dn: DistinguishedName): string {
  return dn
    .map((rdn) =>
      rdn
        .map((a) => ({ a, s: formatAttribute(a) }))
        .sort((x, y) => compareOid(x.a.oid, y.a.oid) || (x.s < y.s ? -1 : x.s > y.s ? 1 : 0))
        .map((x) => x.s)
        .join("+"),
    )
    .join(",");
}

/** Parse an RFC 4514 string. Throws an Error saying what is wrong (one line, for the user). */
export function parseDistinguishedName(input: string): DistinguishedName {
  if (input === "") throw new Error("the name is empty");
  const rdns: DistinguishedName = [];
  let rdn: NameAttribute[] = [];
  let i = 0;
  for (;;) {
    const eq = input.indexOf("=", i);
    if (eq < 0) throw new Error(`'${input.slice(i)}' has no '=': write TYPE=value, e.g. CN=alice`);
    const type = input.slice(i, eq);
    const oid = /^\d+(\.\d+)+$/.test(type) ? type : /^[A-Za-z][A-Za-z0-9-]*$/.test(type) ? OID_OF.get(type.toLowerCase()) : undefined;
    if (!oid)
      throw new Error(
        `'${type}' is not an attribute type (CN, O, OU, C, L, ST, DC, UID, … or a dotted OID); escape a ',' or '+' inside a value as '\\,' or '\\+'`,
      );
    i = eq + 1;
    let value: NameAttribute["value"];
    if (input[i] === "#") {
      const m = /^#((?:[0-9A-Fa-f]{2})+)/.exec(input.slice(i));
      if (!m) throw new Error(`the value of ${type} starts with '#' but is not hex: escape it as '\\#'`);
      value = { der: m[1]!.toLowerCase() };
      i += m[0].length;
    } else {
      const bytes: number[] = [];
      const push = (s: string) => bytes.push(...Buffer.from(s, "utf8"));
      const start = i;
      while (i < input.length && input[i] !== "," && input[i] !== "+") {
        const ch = input[i]!;
        if (ch === "\\") {
          const pair = input.slice(i + 1, i + 3);
          if (/^[0-9A-Fa-f]{2}$/.test(pair)) {
            bytes.push(parseInt(pair, 16));
            i += 3;
          } else if (i + 1 < input.length && ' "#+,;<=>\\'.includes(input[i + 1]!)) {
            push(input[i + 1]!);
            i += 2;
          } else throw new Error(`a '\\' in the value of ${type} must be followed by one of  "#+,;<=>\\ or two hex digits`);
          continue;
        }
        if ('";<>'.includes(ch) || ch === "\0") throw new Error(`'${ch}' in the value of ${type} must be escaped as '\\${ch}'`);
        if (
          (i === start && (ch === " " || ch === "#")) ||
          (ch === " " && (i + 1 === input.length || input[i + 1] === "," || input[i + 1] === "+"))
        )
          throw new Error(`a space at the start or end of the value of ${type} must be escaped as '\\ ' (no spaces around ',' and '+')`);
        const cp = input.codePointAt(i)!;
        push(String.fromCodePoint(cp));
        i += cp > 0xffff ? 2 : 1;
      }
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
      } catch {
        throw new Error(`the \\XX escapes in the value of ${type} are not UTF-8`);
      }
      value = { text };
    }
    rdn.push({ oid, value });
    if (i >= input.length) break;
    if (input[i] === ",") {
      rdns.push(rdn);
      rdn = [];
    } else if (input[i] !== "+") throw new Error(`unexpected '${input[i]}' after the value of ${type}`);
    i++;
    if (i >= input.length) throw new Error("the name ends with a separator");
  }
  rdns.push(rdn);
  return rdns;
}

/** The canonical form of an RFC 4514 string (throws as `parseDistinguishedName`). */
export const canonicalDistinguishedName = (input: string): string => formatDistinguishedName(parseDistinguishedName(input));
