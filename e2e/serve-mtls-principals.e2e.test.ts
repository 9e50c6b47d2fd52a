/**
 * mTLS principals through the real CLI (`agentd serve --http --a2a --tls-ca`), with certificates made by
 * openssl at test time and signed by the same CA: a CN holding a comma (`/CN=bob\,O=ops`), a multi-valued
 * RDN (`/CN=bob+O=ops`), and the same two attributes as two RDNs in either order. Each is a different
 * subject, so each is a different principal: only the one an operator names gets operator rights
 * (`agentd/status` over A2A JSON-RPC), and the principal ids are the RFC 4514 strings openssl prints.
 * `--operators` takes one principal a time (commas are part of a subject) and refuses one that does not parse.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";
import { makeTestPki, type TestPki } from "./__fixtures__/serve/test-pki.ts";

let pki: TestPki;
let ws: CliWorkspace;
beforeAll(() => {
  pki = makeTestPki([
    { name: "bob-comma", subject: "/CN=bob\\,O=ops" },
    { name: "bob-multi", subject: "/CN=bob+O=ops", multivalueRdn: true },
    { name: "bob-cn-first", subject: "/CN=bob/O=ops" },
    { name: "bob-o-first", subject: "/O=ops/CN=bob" },
    { name: "bob-only", subject: "/CN=bob" },
  ]);
  ws = new CliWorkspace();
}, 120_000);
afterAll(() => {
  pki?.remove();
  ws?.cleanup();
});
afterEach(() => stopAllServe(), 30_000);

const CLIENTS = ["bob-comma", "bob-multi", "bob-cn-first", "bob-o-first", "bob-only"] as const;
const tlsArgs = () => ["--tls-cert", pki.path("server.pem"), "--tls-key", pki.path("server.key"), "--tls-ca", pki.path("ca.pem")];

/** `agentd/status` over A2A JSON-RPC as the holder of `who`'s certificate: true when it answered as to an operator. */
async function isOperator(base: URL, who: string): Promise<boolean> {
  const res = await fetch(new URL("/a2a", base), {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "agentd/status", params: {} }),
    tls: { ca: pki.pem("ca.pem"), cert: pki.pem(`${who}.pem`), key: pki.pem(`${who}.key`) },
  });
  const body = (await res.json()) as { result?: unknown; error?: { data?: { reason?: string }[] } };
  if (body.result !== undefined) return true;
  expect(body.error?.data?.[0]?.reason).toBe("PERMISSION_DENIED");
  return false;
}

/** Which of the clients an `agentd serve` with these `--operators` treats as operators. */
async function operatorsAmong(
  operators: string[],
  inConfigFile = false,
): Promise<{ operators: string[]; principals: Record<string, string> }> {
  const flags = inConfigFile ? ["--config", ws.writeConfig({ serve: { operators } })] : operators.flatMap((o) => ["--operators", o]);
  const serve = await startServe(["--http", "127.0.0.1:0", "--a2a", ...tlsArgs(), ...flags, "--grace", "1s"]);
  const out: string[] = [];
  // Each call is logged with its principal id: refused (a user) or served (an operator).
  const principals: Record<string, string> = {};
  for (const who of CLIENTS) {
    const from = serve.events().length;
    if (await isOperator(serve.url, who)) out.push(who);
    principals[who] = String(
      (await serve.waitForEvent((e) => e.event === "a2a.operator.refused" || e.event === "a2a.operator", from)).principal,
    );
  }
  return { operators: out, principals };
}

describe("mTLS subjects are principals that cannot be confused", () => {
  test("principal ids are the RFC 4514 strings openssl prints, one per subject", () => {
    // The test's own oracle: what openssl says each certificate's subject is.
    expect(CLIENTS.map((c) => pki.rfc2253Subject(c))).toEqual(["CN=bob\\,O=ops", "O=ops+CN=bob", "O=ops,CN=bob", "CN=bob,O=ops", "CN=bob"]);
  });

  test("a CN holding ',O=ops' does not become the operator 'mtls:CN=bob,O=ops'; neither do the multi-valued or reordered subjects", async () => {
    const { operators, principals } = await operatorsAmong(["mtls:CN=bob,O=ops"]);
    expect(operators).toEqual(["bob-o-first"]);
    await stopAllServe();
    // The same through serve.operators in the config file (no flag parsing involved).
    expect((await operatorsAmong(["mtls:CN=bob,O=ops"], true)).operators).toEqual(["bob-o-first"]);
    expect(principals).toEqual({
      "bob-comma": "mtls:CN=bob\\,O=ops",
      "bob-multi": "mtls:CN=bob+O=ops",
      "bob-cn-first": "mtls:O=ops,CN=bob",
      "bob-o-first": "mtls:CN=bob,O=ops",
      "bob-only": "mtls:CN=bob",
    });
  }, 60_000);

  test("each subject is an operator only when named exactly, in the form openssl prints (a multi-valued RDN in any order)", async () => {
    expect((await operatorsAmong(["mtls:CN=bob\\,O=ops"])).operators).toEqual(["bob-comma"]);
    await stopAllServe();
    // openssl prints the multi-valued RDN as O=ops+CN=bob; agentd writes it sorted by type (CN=bob+O=ops): both name it.
    expect((await operatorsAmong([`mtls:${pki.rfc2253Subject("bob-multi")}`])).operators).toEqual(["bob-multi"]);
    await stopAllServe();
    expect((await operatorsAmong(["mtls:cn=bob+o=ops", "mtls:O=ops,CN=bob"])).operators).toEqual(["bob-multi", "bob-cn-first"]);
  }, 90_000);
});

describe("--operators", () => {
  test("is repeatable, one principal each; a value that is not a principal id exits 2 with one line", async () => {
    const refused = async (value: string, text: RegExp) => {
      const run = await ws.run(["serve", "--http", "127.0.0.1:0", ...tlsArgs(), "--operators", "local", "--operators", value]);
      expect(run.code).toBe(2);
      const lines = run.stderr.split("\n").filter((l) => l && !l.startsWith("{") && l !== "Run 'agentd serve --help' for usage.");
      expect(lines).toEqual([expect.stringMatching(text)]);
      expect(run.stderr).not.toContain("serve.listening");
    };
    // The old comma-separated list is one value now, and it is not a principal id.
    await refused(
      "local,mtls:CN=bob",
      /^agentd: --operators 'local,mtls:CN=bob' is not a principal id: a principal id is local, bearer:NAME, mtls:SUBJECT or jwt:ISSUER#SUBJECT/,
    );
    await refused(
      "mtls:CN=bob, O=ops",
      /^agentd: --operators 'mtls:CN=bob, O=ops' is not a principal id: the certificate subject is not an RFC 4514 name: ' O' is not an attribute type/,
    );
    await refused("mtls:CN=a;b", /must be escaped as '\\;'/);
    await refused("bearer:", /a bearer token's name is 1-64/);
    // The same check for serve.operators in the config file.
    const config = ws.writeConfig({ serve: { operators: ["local", "mtls:CN=bob, O=ops"] } });
    const fromFile = await ws.run(["serve", "--http", "127.0.0.1:0", ...tlsArgs(), "--config", config]);
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr.split("\n").filter((l) => l && !l.startsWith("{"))).toEqual([
      expect.stringMatching(
        /^agentd: serve\.operators\[1\] 'mtls:CN=bob, O=ops' is not a principal id: the certificate subject is not an RFC 4514 name/,
      ),
    ]);
    const help = await ws.run(["serve", "--help"]);
    expect(help.stdout).toContain("--operators 'mtls:CN=bob\\,O=ops'");
  }, 60_000);
});
