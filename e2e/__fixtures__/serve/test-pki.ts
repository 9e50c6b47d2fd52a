/**
 * A throwaway PKI made at test time with `openssl` in a temp dir: a CA, a server certificate for
 * 127.0.0.1/localhost, client certificates from that CA and one from an unrelated CA. `remove()` deletes it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Files and PEM contents of the test PKI. */
export interface TestPki {
  dir: string;
  /** Absolute path of `<name>.pem` / `<name>.key`. */
  path(file: string): string;
  pem(file: string): string;
  /** The subject of `<name>.pem` as `openssl x509 -noout -subject -nameopt RFC2253` prints it. */
  rfc2253Subject(name: string): string;
  remove(): void;
}

/** A further client certificate from `ca`: its file name, its `-subj`, and whether `+` makes a multi-valued RDN. */
export interface ExtraClient {
  name: string;
  subject: string;
  multivalueRdn?: boolean;
}

/**
 * Make the PKI: `ca`, `other-ca`, `server` (SAN 127.0.0.1, localhost), `alice` (ca), `mallory` (other-ca),
 * and the `extra` clients (ca).
 */
export function makeTestPki(extra: ExtraClient[] = []): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "agentd-serve-pki-"));
  const openssl = (...args: string[]) => {
    const r = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
  };
  const ca = (name: string) =>
    openssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.pem`,
      "-days",
      "1",
      "-subj",
      `/CN=${name}`,
    );
  const cert = (name: string, subject: string, issuer: string, ext?: string, multivalueRdn = false) => {
    openssl(
      "req",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      `${name}.key`,
      "-out",
      `${name}.csr`,
      ...(multivalueRdn ? ["-multivalue-rdn"] : []),
      "-subj",
      subject,
    );
    openssl(
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      `${issuer}.pem`,
      "-CAkey",
      `${issuer}.key`,
      "-CAcreateserial",
      "-out",
      `${name}.pem`,
      "-days",
      "1",
      ...(ext ? ["-extfile", ext] : []),
    );
  };
  try {
    writeFileSync(join(dir, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    ca("ca");
    ca("other-ca");
    cert("server", "/CN=localhost", "ca", "server.ext");
    cert("alice", "/CN=alice/O=agents", "ca");
    cert("mallory", "/CN=alice/O=agents", "other-ca");
    for (const c of extra) cert(c.name, c.subject, "ca", undefined, c.multivalueRdn);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    dir,
    path: (file) => join(dir, file),
    pem: (file) => readFileSync(join(dir, file), "utf8"),
    rfc2253Subject: (name) => {
      const r = spawnSync("openssl", ["x509", "-in", `${name}.pem`, "-noout", "-subject", "-nameopt", "RFC2253"], {
        cwd: dir,
        encoding: "utf8",
      });
      if (r.status !== 0) throw new Error(`openssl x509 failed: ${r.stderr}`);
      return r.stdout.trim().replace(/^subject=\s*/, "");
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
