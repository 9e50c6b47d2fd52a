/**
 * The mutual-TLS front. `Bun.serve` verifies client certificates but does not expose them to the handler,
 * and a session must be bound to the certificate's subject. So with mTLS on, a `node:tls` server terminates
 * TLS (requestCert, rejectUnauthorized, our CA only), reads the verified subject, and pipes the plain bytes
 * to the `Bun.serve` backend on 127.0.0.1. The backend learns the subject of each request by the source port
 * of the piped connection; a connection to the backend that did not come through the front has no entry and
 * is refused (401) by the authenticator. The principal is the subject in the canonical RFC 4514 form of
 * `distinguished-name.ts`, read from the certificate's DER.
 */
import type * as net from "node:net";
import { nodeNet, nodeTls } from "../../_internal/node-builtins.ts";
import type { Logger } from "../../log.ts";
import { certificateSubject, formatDistinguishedName } from "./distinguished-name.ts";

/** What the front binds and where it forwards. */
export interface MtlsFrontOptions {
  hostname: string;
  port: number;
  cert: string;
  key: string;
  ca: string;
  backendPort: number;
  logger: Logger;
}

/** A running front. */
export interface MtlsFront {
  port: number;
  /** The client certificate subject of the connection the backend sees from this peer, if it is ours. */
  principalFor(remote: { address: string; port: number } | null): string | undefined;
  close(): Promise<void>;
}

const LOOPBACK_PEER = new Set(["127.0.0.1", "::ffff:127.0.0.1"]);

/** Start the front. Resolves once it listens. */
export async function startMtlsFront(o: MtlsFrontOptions): Promise<MtlsFront> {
  const principals = new Map<number, { subject: string }>();
  const sockets = new Set<net.Socket>();
  const { connect } = nodeNet();
  const server = nodeTls().createServer(
    { cert: o.cert, key: o.key, ca: o.ca, requestCert: true, rejectUnauthorized: true, minVersion: "TLSv1.2" },
    (client) => {
      const subject = client.authorized ? subjectOf(client.getPeerCertificate()?.raw) : "";
      if (subject === "") {
        o.logger.debug("http.tls.refused", { error: "the client certificate has no readable subject" });
        client.destroy();
        return;
      }
      const upstream = connect(o.backendPort, "127.0.0.1");
      sockets.add(client);
      sockets.add(upstream);
      let localPort: number | undefined;
      const entry = { subject };
      const cleanup = () => {
        // Compare by identity: the port may already belong to a newer connection.
        if (localPort !== undefined && principals.get(localPort) === entry) principals.delete(localPort);
        sockets.delete(client);
        sockets.delete(upstream);
        client.destroy();
        upstream.destroy();
      };
      upstream.once("connect", () => {
        // Register before any byte reaches the backend, so its first request already maps.
        localPort = upstream.localPort;
        if (localPort !== undefined) principals.set(localPort, entry);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      client.on("error", cleanup).on("close", cleanup);
      upstream.on("error", cleanup).on("close", cleanup);
    },
  );
  server.on("tlsClientError", (e) => o.logger.debug("http.tls.refused", { error: e.message }));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : o.port;
  return {
    port,
    principalFor(remote) {
      if (!remote || !LOOPBACK_PEER.has(remote.address)) return undefined;
      return principals.get(remote.port)?.subject;
    },
    async close() {
      for (const s of sockets) s.destroy();
      sockets.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The canonical subject of a DER certificate; empty when it has none or it cannot be read. */
function subjectOf(raw: Uint8Array | undefined): string {
  if (!raw) return "";
  try {
    return formatDistinguishedName(certificateSubject(new Uint8Array(raw)));
  } catch {
    return "";
  }
}
