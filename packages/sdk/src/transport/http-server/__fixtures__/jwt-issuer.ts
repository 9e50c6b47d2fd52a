/**
 * Test fixture: a minimal token issuer on 127.0.0.1 that signs JWTs with `jose` and publishes its JWKS and
 * OpenID metadata over real HTTP; `rotate()` replaces its key (the old one disappears from the JWKS).
 */
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";

/** A running issuer. */
export interface JwtIssuer {
  issuer: string;
  /** Sign `claims` with the current key (or a retired one). */
  sign(claims: JWTPayload, key?: CryptoKey, kid?: string): Promise<string>;
  current(): { key: CryptoKey; kid: string };
  rotate(): Promise<void>;
  stop(): Promise<void>;
}

/** Start an issuer with one ES256 key. */
export async function startJwtIssuer(): Promise<JwtIssuer> {
  let n = 0;
  const make = async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    return { key: privateKey, kid: `key-${++n}`, jwk: { ...(await exportJWK(publicKey)), kid: `key-${n}`, alg: "ES256", use: "sig" } };
  };
  let active = await make();
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req): Response {
      const path = new URL(req.url).pathname;
      if (path === "/jwks") return Response.json({ keys: [active.jwk] });
      if (path === "/.well-known/openid-configuration") return Response.json({ issuer, jwks_uri: `${issuer}/jwks` });
      return new Response("not found", { status: 404 });
    },
  });
  const issuer: string = `http://127.0.0.1:${server.port}`;
  return {
    issuer,
    current: () => ({ key: active.key, kid: active.kid }),
    sign: (claims, key = active.key, kid = active.kid) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid, typ: "at+jwt" })
        .setIssuer((claims.iss as string) ?? issuer)
        .sign(key),
    rotate: async () => {
      active = await make();
    },
    stop: () => server.stop(true),
  };
}
