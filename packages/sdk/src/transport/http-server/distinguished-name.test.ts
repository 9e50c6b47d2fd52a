import { describe, expect, test } from "bun:test";
import { canonicalDistinguishedName, formatDistinguishedName, parseDistinguishedName, readDerName } from "./distinguished-name.ts";

/** DER of a Name from RDNs of [oid-bytes, tag, value-bytes] (hand-built: the test's own encoder). */
function derName(rdns: [number[], number, number[]][][]): Uint8Array {
  const tlv = (tag: number, body: number[]) => [tag, ...(body.length < 128 ? [body.length] : [0x81, body.length]), ...body];
  return new Uint8Array(
    tlv(
      0x30,
      rdns.flatMap((rdn) =>
        tlv(
          0x31,
          rdn.flatMap(([oid, tag, value]) => tlv(0x30, [...tlv(0x06, oid), ...tlv(tag, value)])),
        ),
      ),
    ),
  );
}
const CN = [0x55, 0x04, 0x03];
const O = [0x55, 0x04, 0x0a];
const utf8 = (s: string) => [...Buffer.from(s, "utf8")];
const read = (der: Uint8Array) => formatDistinguishedName(readDerName(der, { tag: 0x30, start: 0, body: 2, end: der.length }));

describe("distinguished names", () => {
  test("different DER names never format alike", () => {
    const forms = [
      read(derName([[[CN, 0x0c, utf8("bob,O=ops")]]])),
      read(
        derName([
          [
            [CN, 0x0c, utf8("bob")],
            [O, 0x0c, utf8("ops")],
          ],
        ]),
      ),
      read(derName([[[CN, 0x0c, utf8("bob")]], [[O, 0x0c, utf8("ops")]]])),
      read(derName([[[O, 0x0c, utf8("ops")]], [[CN, 0x0c, utf8("bob")]]])),
      read(derName([[[CN, 0x0c, utf8("bob+O=ops")]]])),
      read(derName([[[CN, 0x0c, utf8("#626f62")]]])),
      read(derName([[[CN, 0x04, utf8("bob")]]])), // an OCTET STRING: not text, shown as #hex
      read(derName([[[CN, 0x0c, utf8("bob ")]]])),
      read(derName([[[CN, 0x0c, [0x62, 0x6f, 0x62, 0xff]]]])), // invalid UTF-8: #hex, not a replacement character
      read(derName([[[CN, 0x1e, [0, 0x62, 0, 0x6f, 0, 0x62, 0, 0x21]]]])), // BMPString "bob!": text like any string type
      read(derName([[[CN, 0x1c, [0, 0, 0xd8, 0]]]])), // UniversalString holding a surrogate: not a character
    ];
    expect(forms).toEqual([
      "CN=bob\\,O=ops",
      "CN=bob+O=ops",
      "O=ops,CN=bob",
      "CN=bob,O=ops",
      "CN=bob\\+O=ops",
      "CN=\\#626f62",
      "CN=#0403626f62",
      "CN=bob\\ ",
      "CN=#0c04626f62ff",
      "CN=bob!",
      "CN=#1c040000d800",
    ]);
    // Each canonical form parses back to itself.
    for (const f of forms) expect(canonicalDistinguishedName(f)).toBe(f);
  });

  test("any RFC 4514 spelling of a name gives its canonical form", () => {
    expect(canonicalDistinguishedName("O=ops+CN=bob")).toBe("CN=bob+O=ops");
    expect(canonicalDistinguishedName("cn=caf\\C3\\A9,o=ops")).toBe("CN=café,O=ops");
    expect(canonicalDistinguishedName("2.5.4.3=bob,2.5.4.10=ops")).toBe("CN=bob,O=ops");
    expect(canonicalDistinguishedName("CN=a\\3Db")).toBe("CN=a=b");
    expect(formatDistinguishedName(parseDistinguishedName("CN=x\\0Ay"))).toBe("CN=x\\0Ay");
  });

  test("a string that is not a name is refused with the reason", () => {
    for (const [bad, why] of [
      ["", /empty/],
      ["bob", /no '='/],
      ["CN=bob, O=ops", /' O' is not an attribute type/],
      ["CN=bob,", /ends with a separator/],
      ["CN=a;b", /must be escaped/],
      ["CN= a", /space at the start or end/],
      ["CN=\\zz", /must be followed by/],
      ["CN=\\ff", /not UTF-8/],
    ] as const)
      expect(() => parseDistinguishedName(bad)).toThrow(why);
  });
});
