/**
 * OAuth client tokens in a real `agentd store` process (stdio; the directory backend, and Redis when
 * installed): stored and listed by server key, encrypted before they leave the process when a key is set
 * (the store never holds a token in clear; a wrong or missing key is an error), and the store lease makes
 * two clients refreshing one login against a real OpenID provider (`oidc-provider`) hit its token endpoint
 * once. On Redis the two clients talk to two separate store processes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { McpClient } from "../mcp/client/client.ts";
import { followLogin, type OidcProvider, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { type ProtectedMcp, startProtectedMcp } from "@agentd/test-support/protected-mcp";
import { loginServer } from "../transport/http-client/oauth/login.ts";
import { OAuthClientProvider, tokenKey } from "../transport/http-client/oauth/provider.ts";
import { storeKeyFrom } from "../transport/http-client/oauth/token-store.ts";
import { StdioChildTransport } from "../transport/stdio-child.ts";
import { redisServerPath, type RunningRedis, startRedis } from "@agentd/test-support/redis-server";
import { McpStoreTokenStore } from "./oauth-token-store.ts";
import { StoreClient } from "./store-client.ts";

setDefaultTimeout(60_000);

const ENTRY = resolve(import.meta.dir, "__fixtures__/store-entry.ts");
let redis: RunningRedis | undefined;
let oidc: OidcProvider;
let mcp: ProtectedMcp;
const dirs: string[] = [];
const clients: McpClient[] = [];

beforeAll(async () => {
  if (redisServerPath) redis = await startRedis();
  let issuer = "";
  mcp = startProtectedMcp(() => issuer);
  oidc = await startOidcProvider(() => mcp.url);
  issuer = oidc.issuer;
});
afterAll(async () => {
  await mcp?.stop();
  await oidc?.stop();
  await redis?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** A real store process on `args`, and a client of it. */
async function storeProcess(args: string[]): Promise<StoreClient> {
  const client = new McpClient({ name: "oauth-store-test", version: "0" });
  clients.push(client);
  await client.connect(
    new StdioChildTransport({ name: "store", command: process.execPath, args: [ENTRY, ...args], termGraceMs: 100, closeGraceMs: 100 }),
  );
  return new StoreClient(client);
}

const backends = [
  {
    name: "directory",
    skip: false,
    // One store process a directory (the backend's rule): both clients share its connection.
    two: async (): Promise<[StoreClient, StoreClient]> => {
      const dir = mkdtempSync(join(tmpdir(), "agentd-oauth-store-"));
      dirs.push(dir);
      const s = await storeProcess(["--dir", dir]);
      return [s, s];
    },
  },
  {
    name: "redis",
    skip: !redisServerPath,
    two: async (): Promise<[StoreClient, StoreClient]> => {
      const prefix = `oauth${crypto.randomUUID()}:`;
      return [await storeProcess(["--redis", redis!.url, prefix]), await storeProcess(["--redis", redis!.url, prefix])];
    },
  },
];

const tokens = {
  accessToken: "access-secret-value",
  refreshToken: "refresh-secret-value",
  resource: "https://a.example/mcp",
  issuer: "https://login.example",
};

for (const b of backends) {
  describe.skipIf(b.skip)(`OAuth tokens in an agentd store (${b.name})`, () => {
    test("tokens and registrations round-trip, keyed by server and URL; logout removes them", async () => {
      const [s] = await b.two();
      const store = new McpStoreTokenStore(s);
      await store.setTokens("api https://a.example/mcp", tokens);
      await store.setClient("https://login.example", { clientId: "dyn-1" });
      expect(await store.getTokens("api https://a.example/mcp")).toEqual(tokens);
      expect(await store.getTokens("api https://b.example/mcp")).toBeUndefined();
      expect(await store.getClient("https://login.example")).toEqual({ clientId: "dyn-1" });
      expect(await store.keys()).toEqual(["api https://a.example/mcp"]);
      await store.setTokens("api https://a.example/mcp", undefined);
      expect(await store.keys()).toEqual([]);
    });

    test("with a key, the store holds no token in clear; a wrong or missing key is an error", async () => {
      const [s] = await b.two();
      const store = new McpStoreTokenStore(s, { key: await storeKeyFrom("correct horse battery staple") });
      await store.setTokens("api https://a.example/mcp", tokens);
      const raw = await Promise.all((await s.list("oauth/")).map((k) => s.get(k.key)));
      expect(JSON.stringify(raw)).not.toContain("secret-value");
      expect(await store.getTokens("api https://a.example/mcp")).toEqual(tokens);
      await expect(new McpStoreTokenStore(s, { key: await storeKeyFrom("wrong") }).getTokens("api https://a.example/mcp")).rejects.toThrow(
        "wrong AGENTD_OAUTH_STORE_KEY",
      );
      await expect(new McpStoreTokenStore(s).getTokens("api https://a.example/mcp")).rejects.toThrow(
        "are encrypted; set AGENTD_OAUTH_STORE_KEY",
      );
    });

    test("two clients refreshing one expired login at once: one token-endpoint hit, the same fresh token", async () => {
      const [s1, s2] = await b.two();
      const key = await storeKeyFrom("k");
      const a = new McpStoreTokenStore(s1, { key });
      let followed: Promise<Response> | undefined;
      await loginServer({
        server: "api",
        url: mcp.url,
        config: { clientId: "cli" },
        store: a,
        onUrl: (u) => void (followed = followLogin(u.href, "carol")),
      });
      expect((await followed!).status).toBe(200);
      const k = tokenKey("api", new URL(mcp.url));
      const before = (await a.getTokens(k))!;
      await a.setTokens(k, { ...before, expiresAt: Date.now() - 1_000 });
      const hits = () => oidc.requests.filter((r) => r.method === "POST" && r.path === "/token").length;
      const start = hits();
      const providers = [a, new McpStoreTokenStore(s2, { key })].map(
        (store) => new OAuthClientProvider({ server: "api", url: new URL(mcp.url), settings: { clientId: "cli" }, store }),
      );
      const got = await Promise.all(providers.map((p) => p.token()));
      expect(got[0]).toBeString();
      expect(got[0]).not.toBe(before.accessToken);
      expect(got[1]).toBe(got[0]!);
      expect(hits() - start).toBe(1);
      expect((await a.getTokens(k))!.accessToken).toBe(got[0]!);
      expect(await s1.list("oauth/locks/")).toEqual([]);
    });
  });
}
