/**
 * Client authentication at the token endpoint (RFC 6749 §2.3, RFC 7523 §2.2): none (public client),
 * `client_secret_basic`, `client_secret_post` and `private_key_jwt`, as oauth4webapi `ClientAuth` functions.
 *
 * `none`, `client_secret_post` and `private_key_jwt` are oauth4webapi's; the PEM key is read with `jose` (ES256 or
 * RS256 from PKCS#8), which oauth4webapi leaves to the caller. `client_secret_basic` stays ours: oauth4webapi's
 * percent-encodes `-_.!~*'()` as well (HTML 4.01's form encoding), and servers that split the Basic credentials
 * without decoding them — the official conformance authorization server among them (`auth/pre-registration`,
 * `auth/client-credentials-basic`) — would then read `pre%2Dregistered%2Dclient`.
 */
import { importPKCS8 } from "jose";
import * as oauth from "oauth4webapi";
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

/** RFC 6749 §2.3.1: id and secret are form-urlencoded (as browsers do) before Basic encoding. */
const formEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");

/** The oauth4webapi client authentication of `client`. */
export async function clientAuth(client: OAuthClient): Promise<oauth.ClientAuth> {
  switch (client.method) {
    case "client_secret_basic": {
      const credentials = Buffer.from(`${formEncode(client.clientId)}:${formEncode(client.clientSecret ?? "")}`).toString("base64");
      return (_as, _client, _body, headers) => headers.set("authorization", `Basic ${credentials}`);
    }
    case "client_secret_post":
      return oauth.ClientSecretPost(client.clientSecret ?? "");
    case "private_key_jwt": {
      if (!client.privateKeyPem) throw new AgentdError("E_CONFIG_INVALID", "private_key_jwt needs a private key (oauth.privateKeyFile)");
      // The assertion as agentd has always signed it: `typ: JWT`, five minutes, no `nbf` (oauth4webapi's
      // one-minute assertion with `nbf` = now is refused by a server whose clock runs a little behind).
      return oauth.PrivateKeyJwt(await importKey(client.privateKeyPem, client.signingAlg), {
        [oauth.modifyAssertion]: (header, payload) => {
          header.typ = "JWT";
          delete payload.nbf;
          payload.exp = (payload.iat as number) + 300;
        },
      });
    }
    default:
      return oauth.None();
  }
}

async function importKey(pem: string, wanted: string | undefined): Promise<CryptoKey> {
  for (const alg of ["ES256", "RS256"]) {
    if (wanted && wanted !== alg) continue;
    try {
      return await importPKCS8(pem, alg);
    } catch {
      // Not this key type: try the next.
    }
  }
  throw new AgentdError("E_CONFIG_INVALID", `the OAuth private key is not a PKCS#8 ${wanted ?? "P-256 EC or RSA"} key in PEM form`);
}
