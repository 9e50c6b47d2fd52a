/**
 * Certificates for the TLS benchmark, made with the openssl CLI in a temp folder: a CA, a server
 * certificate for 127.0.0.1 and a client certificate, both signed by the CA. The same files serve every
 * subject, so agentd and the bare floor use the same certificate.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runToEnd } from "../lib/proc.ts";

/** Paths of the PEM files. */
export interface BenchCerts {
  dir: string;
  ca: string;
  cert: string;
  key: string;
  clientCert: string;
  clientKey: string;
  dispose(): void;
}

async function openssl(args: string[]): Promise<void> {
  const r = await runToEnd(["openssl", ...args], { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.slice(-800)}`);
}

/** Make the CA, server and client certificates (EC P-256, valid one day). */
export async function makeCerts(): Promise<BenchCerts> {
  const dir = mkdtempSync(join(tmpdir(), "agentd-bench-tls-"));
  const p = (name: string) => join(dir, name);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await openssl(["req", "-x509", ...ec, "-keyout", p("ca.key"), "-out", p("ca.pem"), "-days", "1", "-subj", "/CN=agentd bench CA"]);
  writeFileSync(p("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  writeFileSync(p("client.ext"), "extendedKeyUsage=clientAuth\n");
  for (const [who, cn] of [
    ["server", "127.0.0.1"],
    ["client", "bench-client"],
  ] as const) {
    await openssl(["req", ...ec, "-keyout", p(`${who}.key`), "-out", p(`${who}.csr`), "-subj", `/CN=${cn}`]);
    await openssl([
      "x509",
      "-req",
      "-in",
      p(`${who}.csr`),
      "-CA",
      p("ca.pem"),
      "-CAkey",
      p("ca.key"),
      "-CAcreateserial",
      "-days",
      "1",
      "-extfile",
      p(`${who}.ext`),
      "-out",
      p(`${who}.pem`),
    ]);
  }
  readFileSync(p("server.pem"), "utf8"); // fail here, not in a server, if a file is missing
  return {
    dir,
    ca: p("ca.pem"),
    cert: p("server.pem"),
    key: p("server.key"),
    clientCert: p("client.pem"),
    clientKey: p("client.key"),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
