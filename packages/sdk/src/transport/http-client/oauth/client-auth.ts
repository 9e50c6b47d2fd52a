/**
 * Client authentication at the token endpoint (RFC 6749 §2.3, RFC 7523 §2.2): none (public client),
 * `client_secret_basic`, `client_secret_post` and `private_key_jwt`. The JWT assertion is signed with
 * `jose` (ES256 or RS256 from a PKCS#8 PEM key), the library that also verifies tokens on the serving side.
 */
import { importPKCS8, SignJWT } from "jose";
import { AgentdError } from "../../../wire/errors.ts";

/** The token endpoint authentication methods agentd speaks. */
export type TokenAuthMethod = "none" | "client_secret_basic" | "client_secret_post" | "private_key_jwt";

/** A client as it authenticates at one authorization server. */
export interface OAuthClient {
  clientId: string;
  clientSecret?: string;
  privateKeyPem?: string;
  /** `ES256` or `RS256`; default: from the key type. */
  signingAlg?: string;
  method: TokenAuthMethod;
}

/** The method to use: a key means private-key JWT; a secret, basic unless only post is offered. */
export function chooseAuthMethod(supported: string[] | undefined, has: { secret: boolean; key: boolean }): TokenAuthMethod {
  if (has.key) return "private_key_jwt";
  if (!has.secret) return "none";
  // RFC 8414 §2: an absent list means client_secret_basic.
  if (!supported || supported.includes("client_secret_basic")) return "client_secret_basic";
  return supported.includes("client_secret_post") ? "client_secret_post" : "client_secret_basic";
}

/** RFC 6749 §2.3.1: id and secret are form-urlencoded before Basic encoding. */
const formEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");

/** Add the client's authentication to a token request (form body and headers). */
export async function authenticate(client: OAuthClient, body: URLSearchParams, headers: Headers, audience: string): Promise<void> {
  switch (client.method) {
    case "client_secret_basic":
      headers.set(
        "authorization",
        `Basic ${Buffer.from(`${formEncode(client.clientId)}:${formEncode(client.clientSecret ?? "")}`).toString("base64")}`,
      );
      return;
    case "client_secret_post":
      body.set("client_id", client.clientId);
      body.set("client_secret", client.clientSecret ?? "");
      return;
    case "private_key_jwt":
      body.set("client_id", client.clientId);
      body.set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
      body.set("client_assertion", await clientAssertion(client, audience));
      return;
    default:
      body.set("client_id", client.clientId);
  }
}

/** A short-lived RFC 7523 client assertion: iss = sub = client id, aud = the authorization server. */
async function clientAssertion(client: OAuthClient, audience: string): Promise<string> {
  if (!client.privateKeyPem) throw new AgentdError("E_CONFIG_INVALID", "private_key_jwt needs a private key (oauth.privateKeyFile)");
  const { alg, key } = await importKey(client.privateKeyPem, client.signingAlg);
  return new SignJWT({})
    .setProtectedHeader({ alg, typ: "JWT" })
    .setIssuer(client.clientId)
    .setSubject(client.clientId)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime("300s")
    .setJti(crypto.randomUUID())
    .sign(key);
}

async function importKey(pem: string, wanted: string | undefined): Promise<{ alg: string; key: CryptoKey }> {
  for (const alg of ["ES256", "RS256"]) {
    if (wanted && wanted !== alg) continue;
    try {
      return { alg, key: await importPKCS8(pem, alg) };
    } catch {
      // Not this key type: try the next.
    }
  }
  throw new AgentdError("E_CONFIG_INVALID", `the OAuth private key is not a PKCS#8 ${wanted ?? "P-256 EC or RSA"} key in PEM form`);
}
