/**
 * The `serve.auth` keys for permissions and introspection, from a parsed configuration to the HTTP server's
 * options: static tokens' permissions, read-status tokens from their file, an issuer's introspection secret
 * read from its environment variable (a missing one is one clear line).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../config/load.ts";
import { httpServeOptionsFromConfig } from "./serve-options-from-config.ts";

const dir = mkdtempSync(join(tmpdir(), "agentd-serve-auth-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe("serve.auth permissions and introspection", () => {
  test("tokenPermissions and statusTokensFile give static tokens their permissions", async () => {
    const config = parseConfig(
      {
        serve: {
          http: "127.0.0.1:0",
          auth: {
            tokensFile: file("t.txt", "runner-token-0123456789\n"),
            tokenPermissions: ["run"],
            statusTokensFile: file("s.txt", "status-token-0123456789\n"),
          },
        },
      },
      {},
    );
    const o = await httpServeOptionsFromConfig(config);
    expect(o?.auth?.bearerTokens).toEqual([
      { token: "runner-token-0123456789", name: "bearer#0", permissions: ["run"] },
      { token: "status-token-0123456789", name: "status#0", permissions: ["status"] },
    ]);
  });

  test("an issuer's introspection secret comes from its environment variable", async () => {
    const jwt = [
      {
        issuer: "https://login.example.com",
        scopePermissions: { "agentd:status": ["status"] },
        introspection: { clientId: "agentd", clientSecretEnv: "AGENTD_TEST_INTROSPECTION_SECRET" },
      },
    ];
    const config = parseConfig({ serve: { http: "127.0.0.1:0", auth: { jwt } } }, {});
    process.env.AGENTD_TEST_INTROSPECTION_SECRET = "s3cret";
    try {
      const o = await httpServeOptionsFromConfig(config);
      expect(o?.auth?.jwt?.[0]).toEqual({
        issuer: "https://login.example.com",
        scopePermissions: { "agentd:status": ["status"] },
        introspection: { clientId: "agentd", clientSecret: "s3cret" },
      });
    } finally {
      delete process.env.AGENTD_TEST_INTROSPECTION_SECRET;
    }
    await expect(httpServeOptionsFromConfig(config)).rejects.toThrow(
      "introspection needs this server's client secret: set clientSecretEnv to a variable that is set, or clientSecretFile",
    );
  });

  test("an unknown permission is refused by the configuration check", () => {
    expect(() => parseConfig({ serve: { auth: { tokenPermissions: ["admin"] } } }, {})).toThrow("serve.auth.tokenPermissions");
  });
});

describe("httpServeOptionsFromConfig's result", () => {
  test("names only the keys that are set, so a caller can spread it over its own defaults", async () => {
    const options = await httpServeOptionsFromConfig(parseConfig({ serve: { http: "127.0.0.1:0" } }, {}));
    expect(options).toStrictEqual({ hostname: "127.0.0.1", port: 0 });
    const merged = { responseMode: "json", allowedHosts: ["agent.example"], ...options };
    expect(merged.responseMode).toBe("json");
    expect(merged.allowedHosts).toEqual(["agent.example"]);
  });
});
