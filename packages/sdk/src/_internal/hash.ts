/**
 * SHA-256 digests and random ids without loading `node:crypto` at import. Under Bun `node:crypto` is a
 * JavaScript module of the runtime that costs ~4 ms of CPU to load (about a tenth of a one-shot `agentd
 * demo`) and ~0.5 MB of memory, while `Bun.CryptoHasher` is native and already there; under Node (the
 * packages' `dist/` build) the built-in is loaded on the first digest, as before. Ids use Web Crypto's
 * `crypto.randomUUID()`, a global in both runtimes.
 */
import { nodeCrypto } from "./node-builtins.ts";

/** The encodings the call sites use: text keys (`hex`, `base64url`) or the raw bytes. */
type DigestEncoding = "hex" | "base64url";

const bunHasher = (globalThis as { Bun?: { CryptoHasher: typeof Bun.CryptoHasher } }).Bun?.CryptoHasher;

/** The SHA-256 of `data` (a string is hashed as UTF-8), encoded as asked. */
export function sha256(data: string | Uint8Array, encoding: DigestEncoding): string {
  if (bunHasher) return new bunHasher("sha256").update(data).digest(encoding);
  return nodeCrypto().createHash("sha256").update(data).digest(encoding);
}

/** The SHA-256 of `data` (a string is hashed as UTF-8), as raw bytes. */
export function sha256Bytes(data: string | Uint8Array): Uint8Array {
  if (bunHasher) return new bunHasher("sha256").update(data).digest();
  return nodeCrypto().createHash("sha256").update(data).digest();
}

/** A random version-4 UUID (Web Crypto; no built-in module loaded). */
export const randomUuid = (): string => globalThis.crypto.randomUUID();
