import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clientAuth, chooseAuthMethod, type OAuthClient } from "./client-auth.ts";
import { resolveOAuthSettings } from "./settings.ts";

const dirs: string[] = [];

/** Add `client`'s authentication to a token request's form and headers, as oauth4webapi does for `issuer`. */
async function authenticate(client: OAuthClient, body: URLSearchParams, headers: Headers, issuer: string): Promise<void> {
  await (await clientAuth(client))({ issuer }, { client_id: client.clientId }, body, headers);
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("oauth settings", () => {
  test("secrets come from the named environment variable or file; a missing one is one clear line", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-oauth-settings-"));
    dirs.push(dir);
    writeFileSync(join(dir, "secret"), "from-file\n");
    expect(resolveOAuthSettings("s", { clientId: "c", clientSecretEnv: "S_SECRET" }, { S_SECRET: "from-env" })).toEqual({
      clientId: "c",
      clientSecret: "from-env",
    });
    expect(resolveOAuthSettings("s", { clientSecretFile: join(dir, "secret") }, {}).clientSecret).toBe("from-file");
    expect(() => resolveOAuthSettings("s", { clientSecretEnv: "NOPE" }, {})).toThrow(
      "MCP server 's': oauth.clientSecretEnv names NOPE, which is not set",
    );
    writeFileSync(join(dir, "empty"), "\n");
    expect(() => resolveOAuthSettings("s", { clientSecretFile: join(dir, "empty") }, {})).toThrow(
      `MCP server 's': oauth.clientSecretFile ${join(dir, "empty")} is empty`,
    );
    expect(() => resolveOAuthSettings("s", { privateKeyFile: join(dir, "missing.pem") }, {})).toThrow(
      /cannot read oauth.privateKeyFile .*ENOENT/,
    );
  });

  test("identity_assertion: the IdP's client secret by variable, the ID token read at each grant from its variable or file", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-oauth-settings-"));
    dirs.push(dir);
    const env: Record<string, string | undefined> = { IDP_SECRET: "idp-s", ID_TOKEN: "id-1" };
    const ia = {
      tokenEndpoint: "https://idp.example/token",
      clientId: "agentd-at-idp",
      clientSecretEnv: "IDP_SECRET",
      idTokenEnv: "ID_TOKEN",
    };
    const s = resolveOAuthSettings("s", { clientId: "c", grant: "identity_assertion", identityAssertion: ia }, env);
    expect(s.grant).toBe("identity_assertion");
    expect(s.identityAssertion).toMatchObject({
      tokenEndpoint: "https://idp.example/token",
      clientId: "agentd-at-idp",
      clientSecret: "idp-s",
    });
    expect(s.identityAssertion?.idToken()).toBe("id-1");
    env.ID_TOKEN = "id-2"; // renewed by the platform
    expect(s.identityAssertion?.idToken()).toBe("id-2");
    writeFileSync(join(dir, "id-token"), "from-file\n");
    const fromFile = resolveOAuthSettings(
      "s",
      { identityAssertion: { tokenEndpoint: "https://idp.example/token", idTokenFile: join(dir, "id-token") } },
      {},
    );
    expect(fromFile.identityAssertion?.idToken()).toBe("from-file");
    expect(() => resolveOAuthSettings("s", { identityAssertion: { tokenEndpoint: "https://idp.example/token" } }, {})).toThrow(
      "MCP server 's': oauth.identityAssertion needs idTokenEnv or idTokenFile",
    );
  });

  test("token endpoint authentication: method choice, Basic encoding, and a private-key JWT WebCrypto can verify", async () => {
    expect(chooseAuthMethod(undefined, { secret: true, key: false })).toBe("client_secret_basic");
    expect(chooseAuthMethod(["client_secret_post"], { secret: true, key: false })).toBe("client_secret_post");
    expect(chooseAuthMethod(["none"], { secret: false, key: false })).toBe("none");
    expect(chooseAuthMethod(undefined, { secret: false, key: true })).toBe("private_key_jwt");

    const basic = new Headers();
    await authenticate(
      { clientId: "a b:c", clientSecret: "s&t", method: "client_secret_basic" },
      new URLSearchParams(),
      basic,
      "https://as",
    );
    expect(Buffer.from(basic.get("authorization")!.slice(6), "base64").toString()).toBe("a+b%3Ac:s%26t");
    // `-` and `.` stay as they are (oauth4webapi's own Basic encoding would send `%2D` and `%2E`).
    const plain = new Headers();
    await authenticate(
      { clientId: "pre-registered.client", clientSecret: "s-1", method: "client_secret_basic" },
      new URLSearchParams(),
      plain,
      "https://as",
    );
    expect(Buffer.from(plain.get("authorization")!.slice(6), "base64").toString()).toBe("pre-registered.client:s-1");

    const { privateKey, publicKey } = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
    const pem = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(await crypto.subtle.exportKey("pkcs8", privateKey)).toString("base64")}\n-----END PRIVATE KEY-----\n`;
    const body = new URLSearchParams();
    await authenticate({ clientId: "cid", privateKeyPem: pem, method: "private_key_jwt" }, body, new Headers(), "https://as.example");
    expect(body.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    const [h, p, s] = body.get("client_assertion")!.split(".");
    expect(JSON.parse(Buffer.from(h!, "base64url").toString())).toEqual({ alg: "ES256", typ: "JWT" });
    const claims = JSON.parse(Buffer.from(p!, "base64url").toString());
    expect(claims).toMatchObject({ iss: "cid", sub: "cid", aud: "https://as.example" });
    expect(claims.exp - claims.iat).toBe(300);
    expect(claims.nbf).toBeUndefined();
    const ok = await crypto.subtle.verify(
      { name: "ECDSA", hash: "SHA-256" },
      publicKey,
      Buffer.from(s!, "base64url"),
      new TextEncoder().encode(`${h}.${p}`),
    );
    expect(ok).toBe(true);

    const rsa = await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    );
    const rsaPem = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(await crypto.subtle.exportKey("pkcs8", rsa.privateKey)).toString("base64")}\n-----END PRIVATE KEY-----\n`;
    const rsaBody = new URLSearchParams();
    await authenticate({ clientId: "cid", privateKeyPem: rsaPem, method: "private_key_jwt" }, rsaBody, new Headers(), "https://as.example");
    const [rh, rp, rs] = rsaBody.get("client_assertion")!.split(".");
    expect(JSON.parse(Buffer.from(rh!, "base64url").toString())).toEqual({ alg: "RS256", typ: "JWT" });
    const rsaOk = await crypto.subtle.verify(
      "RSASSA-PKCS1-v1_5",
      rsa.publicKey,
      Buffer.from(rs!, "base64url"),
      new TextEncoder().encode(`${rh}.${rp}`),
    );
    expect(rsaOk).toBe(true);
    await expect(
      authenticate(
        { clientId: "cid", privateKeyPem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", method: "private_key_jwt" },
        new URLSearchParams(),
        new Headers(),
        "https://as",
      ),
    ).rejects.toThrow(/not a PKCS#8 P-256 EC or RSA key/);
  });
});
