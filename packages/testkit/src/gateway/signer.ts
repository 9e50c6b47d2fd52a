/**
 * Signatures the fake gateways put on reasoning they serve (Anthropic thinking blocks and redacted data,
 * Gemini thought signatures) and check when a client sends it back: an HMAC under a key each gateway
 * draws at start, so only what this gateway served, unchanged, verifies.
 */
import { hmacSha256Base64 } from "./hashing.ts";

/** Signs and verifies opaque reasoning tokens. */
export interface Signer {
  sign(payload: string): string;
  verify(payload: string, signature: unknown): boolean;
}

/** A signer with a fresh random key. */
export function createSigner(): Signer {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const sign = (payload: string) => hmacSha256Base64(key, payload);
  return { sign, verify: (payload, signature) => typeof signature === "string" && signature === sign(payload) };
}
