/**
 * Two real agentd processes refreshing the same stored login at once, against a real OpenID provider
 * (`oidc-provider`, which rotates refresh tokens: a second refresh with the old one would fail): the token
 * file's lock makes exactly one of them call the token endpoint, the other reads the fresh token, and the
 * file stays whole. Also: the lock itself (exclusion within and across holders, stale-lock takeover).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { followLogin, type OidcProvider, startOidcProvider } from "@agentd/test-support/oidc-provider";
import { type ProtectedMcp, startProtectedMcp } from "@agentd/test-support/protected-mcp";
import { withFileLock } from "./file-lock.ts";
import { loginServer } from "./login.ts";
import { tokenKey } from "./provider.ts";
import { FileTokenStore } from "./token-store.ts";

setDefaultTimeout(60_000);

let oidc: OidcProvider;
let mcp: ProtectedMcp;
let dir: string;
let file: string;

beforeAll(async () => {
  let issuer = "";
  mcp = startProtectedMcp(() => issuer);
  oidc = await startOidcProvider(() => mcp.url);
  issuer = oidc.issuer;
  dir = mkdtempSync(join(tmpdir(), "agentd-lock-"));
  file = join(dir, "oauth.json");
  let followed: Promise<Response> | undefined;
  await loginServer({
    server: "api",
    url: mcp.url,
    config: { clientId: "cli" },
    store: new FileTokenStore(file),
    onUrl: (u) => void (followed = followLogin(u.href, "bob")),
  });
  expect((await followed!).status).toBe(200);
});
afterAll(async () => {
  await mcp?.stop();
  await oidc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const FIXTURE = join(import.meta.dir, "__fixtures__", "refresh-process.ts");

/** Read lines from a process's stdout until `done` says stop; resolves with every line so far. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  buffered: { text: string },
  done: (lines: string[]) => boolean,
): Promise<string[]> {
  for (;;) {
    const lines = buffered.text.split("\n").filter(Boolean);
    if (done(lines)) return lines;
    const { value, done: ended } = await reader.read();
    if (ended) return lines;
    buffered.text += new TextDecoder().decode(value);
  }
}

describe("cross-process token refresh", () => {
  test("two processes refreshing an expired token at once: one token-endpoint hit, both get the fresh token", async () => {
    const store = new FileTokenStore(file);
    const key = tokenKey("api", new URL(mcp.url));
    const before = (await store.getTokens(key))!;
    expect(before.refreshToken).toBeDefined();
    await store.setTokens(key, { ...before, expiresAt: Date.now() - 1_000 });
    const hitsBefore = oidc.requests.filter((r) => r.method === "POST" && r.path === "/token").length;

    const procs = [0, 1].map(() => Bun.spawn(["bun", FIXTURE, file, mcp.url], { stdin: "pipe", stdout: "pipe", stderr: "inherit" }));
    try {
      const outs = procs.map((p) => ({ reader: p.stdout.getReader(), buffered: { text: "" } }));
      // Both hold the expired token in memory before either may refresh.
      for (const o of outs) expect(await readUntil(o.reader, o.buffered, (l) => l.includes("loaded"))).toContain("loaded");
      for (const p of procs) {
        p.stdin.write("go\n");
        await p.stdin.end();
      }
      const results = await Promise.all(outs.map((o) => readUntil(o.reader, o.buffered, (l) => l.length >= 2)));
      expect(await Promise.all(procs.map((p) => p.exited))).toEqual([0, 0]);
      const tokens = results.map((lines) => (JSON.parse(lines[1]!) as { token: string }).token);
      expect(tokens[0]).toBeString();
      expect(tokens[0]).not.toBe(before.accessToken);
      expect(tokens[1]).toBe(tokens[0]!);
      const hits = oidc.requests.filter((r) => r.method === "POST" && r.path === "/token").length - hitsBefore;
      expect(hits).toBe(1);
      // The file is whole and holds that token; no lock file is left behind.
      const after = (await new FileTokenStore(file).getTokens(key))!;
      expect(after.accessToken).toBe(tokens[0]!);
      expect(JSON.parse(readFileSync(file, "utf8")).tokens).toBeDefined();
      expect(existsSync(`${file}.lock`)).toBe(false);
    } finally {
      for (const p of procs) p.kill();
    }
  });
});

describe("the lock file", () => {
  test("holders take turns: no two run inside at once", async () => {
    const lock = join(dir, "turns.lock");
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3, 4].map((n) =>
        withFileLock(lock, async () => {
          most = Math.max(most, ++inside);
          await new Promise<void>((resolve) => setImmediate(resolve));
          order.push(n);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(order.sort()).toEqual([1, 2, 3, 4]);
    expect(existsSync(lock)).toBe(false);
  });

  test("a lock left by a dead process is taken over; a live holder's is waited for", async () => {
    const lock = join(dir, "stale.lock");
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    writeFileSync(lock, JSON.stringify({ host: (await import("node:os")).hostname(), pid: dead.pid, at: Date.now() }));
    expect(await withFileLock(lock, async () => "taken over")).toBe("taken over");
    // A live holder (this process, fresh): a short wait gives up with one line naming the file.
    writeFileSync(lock, JSON.stringify({ host: (await import("node:os")).hostname(), pid: process.pid, at: Date.now() }));
    await expect(withFileLock(lock, async () => "never", { timeoutMs: 300 })).rejects.toThrow(`the lock ${lock} is still held`);
    // The same lock, once old enough, is taken over.
    expect(await withFileLock(lock, async () => "aged out", { staleMs: 0 })).toBe("aged out");
  });
});
