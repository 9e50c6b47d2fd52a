/**
 * An incremental SHA-256 without loading `node:crypto` at import: under Bun that built-in is a JavaScript
 * module costing ~4 ms of CPU to load (a tenth of a one-shot `agentd demo`), while `Bun.CryptoHasher` is
 * native; under Node the built-in is loaded on the first hash.
 */
import { createRequire } from "node:module";

/** The part of a hash both runtimes' hashers share. */
export interface Sha256 {
  update(data: string): Sha256;
  copy(): Sha256;
  digest(encoding: "base64" | "hex"): string;
}

const bunHasher = (globalThis as { Bun?: { CryptoHasher: typeof Bun.CryptoHasher } }).Bun?.CryptoHasher;

/** A fresh SHA-256 hasher. */
export function sha256(): Sha256 {
  if (bunHasher) return new bunHasher("sha256") as unknown as Sha256;
  const { createHash } = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
  return createHash("sha256") as unknown as Sha256;
}
