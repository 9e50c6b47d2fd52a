/** The strict reader of `Forwarded` and `X-Forwarded-Client-Cert`: what is read, and what is malformed. */
import { describe, expect, test } from "bun:test";
import { parseForwardedList } from "./forwarded-list.ts";

const read = (header: string, repeatable?: string[]) => {
  const r = parseForwardedList(header, repeatable && new Set(repeatable));
  return r.ok ? r.elements.map((e) => Object.fromEntries(e)) : r.error;
};

describe("parseForwardedList", () => {
  test("elements, pairs, quoted strings with escapes, case-insensitive keys, whitespace around separators", () => {
    expect(read('for=1.2.3.4;proto=https;host="a.example:8443"')).toEqual([
      { for: ["1.2.3.4"], proto: ["https"], host: ["a.example:8443"] },
    ]);
    expect(read('Hash=1;Subject="CN=a,O=b;c" , By=spiffe://x/y; URI=spiffe://c')).toEqual([
      { hash: ["1"], subject: ["CN=a,O=b;c"] },
      { by: ["spiffe://x/y"], uri: ["spiffe://c"] },
    ]);
    expect(read('Subject="CN=bob\\"s \\\\ x"')).toEqual([{ subject: ['CN=bob"s \\ x'] }]);
    expect(read('URI=;DNS=a;DNS=b;Subject=""', ["uri", "dns"])).toEqual([{ uri: [""], dns: ["a", "b"], subject: [""] }]);
    // RFC 7239's grammar allows empty pairs.
    expect(read("for=a;;proto=http;")).toEqual([{ for: ["a"], proto: ["http"] }]);
  });

  test("malformed: an unterminated quote, a bad escape, a control character, text after a quote, a repeated key", () => {
    expect(read('Subject="CN=admin')).toBe("an unterminated quoted string at character 9");
    expect(read('Subject="CN=admin\\')).toBe("an escape of nothing or of a control character at character 18");
    expect(read('Subject="CN=a\\\u0001"')).toBe("an escape of nothing or of a control character at character 14");
    expect(read('Subject="CN=a\u0001"')).toBe("a control character in a quoted string at character 14");
    expect(read('Subject="CN=a"b')).toBe("text after a value at character 15");
    expect(read("Subject=CN a")).toBe("text after a value at character 12");
    expect(read('Subject="a";subject="b"')).toBe('the key "subject" a second time in one element at character 13');
    expect(read("URI=a;URI=b")).toBe('the key "uri" a second time in one element at character 7');
    expect(read("Subject")).toBe('a pair without "=" at character 8');
    expect(read("=a")).toBe("a key that is not a token at character 1");
    expect(read("a=1,,b=2")).toBe("an empty element at character 5");
    expect(read("a=1,")).toBe("an empty element at character 5");
    expect(read("")).toBe("an empty element at character 1");
  });

  test("the client's text cannot swallow the element a proxy appends after it", () => {
    const proxy = 'By=spiffe://c/ns/a/sa/agentd;Hash=0a;Subject="";URI=spiffe://c/ns/a/sa/caller';
    for (const client of ['Subject=CN=admin;URI=",', 'Subject="CN=admin";Subject="', 'Subject="CN=admin\\', 'a="\\"'])
      expect(read(`${client},${proxy}`, ["uri", "dns"])).toBeString();
    // A well-formed client element stays an element of its own: the proxy's is still the last.
    const ok = parseForwardedList(`Subject="CN=admin";URI=",",${proxy}`, new Set(["uri"]));
    expect(ok.ok && ok.elements.length === 2 && ok.elements[1]!.get("uri")).toEqual(["spiffe://c/ns/a/sa/caller"]);
  });
});
