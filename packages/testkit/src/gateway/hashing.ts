/**
 * SHA-256 and HMAC-SHA-256 for the fake gateways without loading `node:crypto` at import: `agentd demo`
 * runs a gateway in its own process, and under Bun that built-in costs ~4 ms of CPU to load while
 * `Bun.CryptoHasher` is native; under Node the built-in is loaded on first use.
 */
import { createRequire } from "node:module";

const bunHasher = (globalThis as { Bun?: { CryptoHasher: typeof Bun.CryptoHasher } }).Bun?.CryptoHasher;
const nodeCrypto = (): typeof import("node:crypto") => createRequire(import.meta.url)("node:crypto");

/** The SHA-256 of the strings joined, as hex. */
export function sha256Hex(...parts: string[]): string {
  if (bunHasher) {
    const hash = new bunHasher("sha256");
    for (const part of parts) hash.update(part);
    return hash.digest("hex");
  }
  const hash = nodeCrypto().createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

/** The HMAC-SHA-256 of `payload` under `key`, as base64. */
export function hmacSha256Base64(key: Uint8Array, payload: string): string {
  if (bunHasher) return new bunHasher("sha256", key).update(payload).digest("base64");
  return nodeCrypto().createHmac("sha256", key).update(payload).digest("base64");
}
