/**
 * Signatures the fake gateways put on reasoning they serve (Anthropic thinking blocks and redacted data,
 * Gemini thought signatures) and check when a client sends it back: an HMAC under a key each gateway
 * draws at start, so only what this gateway served, unchanged, verifies.
 */
import { createHmac, randomBytes } from "node:crypto";

/** Signs and verifies opaque reasoning tokens. */
export interface Signer {
  sign(payload: string): string;
  verify(payload: string, signature: unknown): boolean;
}

/** A signer with a fresh random key. */
export function createSigner(): Signer {
  const key = randomBytes(32);
  const sign = (payload: string) => createHmac("sha256", key).update(payload).digest("base64");
  return { sign, verify: (payload, signature) => typeof signature === "string" && signature === sign(payload) };
}
