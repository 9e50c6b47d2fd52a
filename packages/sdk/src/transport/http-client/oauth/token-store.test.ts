import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultTokenFile, FileTokenStore, storeKeyFrom, type StoredTokens } from "./token-store.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "agentd-tokens-"));
  dirs.push(d);
  return d;
};
const TOKENS: StoredTokens = {
  accessToken: "at-secret-123456",
  refreshToken: "rt-secret-654321",
  resource: "https://x.example/mcp",
  issuer: "https://as.example/",
};

describe("FileTokenStore", () => {
  test("creates the file 0600 in a 0700 directory and reads back what it wrote", async () => {
    const path = join(tempDir(), "state", "agentd", "oauth.json");
    const store = new FileTokenStore(path);
    await store.setTokens("srv https://x.example/mcp", TOKENS);
    await store.setClient("https://as.example/", { clientId: "c1" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
    const again = new FileTokenStore(path);
    expect(await again.getTokens("srv https://x.example/mcp")).toEqual(TOKENS);
    expect(await again.getClient("https://as.example/")).toEqual({ clientId: "c1" });
    expect(await again.keys()).toEqual(["srv https://x.example/mcp"]);
    await again.setTokens("srv https://x.example/mcp", undefined);
    expect(await store.keys()).toEqual([]);
  });

  test("concurrent writes of one process all land", async () => {
    const store = new FileTokenStore(join(tempDir(), "oauth.json"));
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.setTokens(`s${i}`, { ...TOKENS, accessToken: `t${i}` })));
    expect((await store.keys()).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `s${i}`).sort());
  });

  test("with a key the file is AES-GCM ciphertext; a wrong key or an altered file is refused, never read as empty", async () => {
    const path = join(tempDir(), "oauth.json");
    const key = await storeKeyFrom("correct horse battery staple");
    await new FileTokenStore(path, key).setTokens("s", TOKENS);
    const raw = readFileSync(path, "utf8");
    expect(raw).not.toContain("at-secret");
    expect(raw).not.toContain("rt-secret");
    expect(JSON.parse(raw).alg).toBe("A256GCM");
    expect(await new FileTokenStore(path, key).getTokens("s")).toEqual(TOKENS);
    const wrong = await storeKeyFrom("another passphrase");
    await expect(new FileTokenStore(path, wrong).getTokens("s")).rejects.toThrow(/wrong AGENTD_OAUTH_STORE_KEY/);
    await expect(new FileTokenStore(path).getTokens("s")).rejects.toThrow(/encrypted; set AGENTD_OAUTH_STORE_KEY/);
    const doc = JSON.parse(raw);
    const data = Buffer.from(doc.data, "base64");
    data[0] = data[0]! ^ 1;
    writeFileSync(path, JSON.stringify({ ...doc, data: data.toString("base64") }));
    await expect(new FileTokenStore(path, key).getTokens("s")).rejects.toThrow(/altered/);
  });

  test("a 32-byte base64 key is used as is; the default file follows AGENTD_OAUTH_STORE, then XDG_STATE_HOME", async () => {
    const raw = Buffer.alloc(32, 7).toString("base64");
    const path = join(tempDir(), "k.json");
    await new FileTokenStore(path, await storeKeyFrom(raw)).setTokens("s", TOKENS);
    const direct = await crypto.subtle.importKey("raw", Buffer.alloc(32, 7), "AES-GCM", false, ["decrypt"]);
    const doc = JSON.parse(readFileSync(path, "utf8"));
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: Buffer.from(doc.iv, "base64") },
      direct,
      Buffer.from(doc.data, "base64"),
    );
    expect(JSON.parse(new TextDecoder().decode(plain)).tokens.s.accessToken).toBe(TOKENS.accessToken);
    expect(defaultTokenFile({ AGENTD_OAUTH_STORE: "/x/y.json", XDG_STATE_HOME: "/s" })).toBe("/x/y.json");
    expect(defaultTokenFile({ XDG_STATE_HOME: "/s" })).toBe("/s/agentd/oauth.json");
  });
});
