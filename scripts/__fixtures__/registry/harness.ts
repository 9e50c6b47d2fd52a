/**
 * Support for the registry test: run a command and collect its output, start and stop the private
 * registry (by PID), register a publisher, and build a PATH on which Node and npm exist but Bun does not.
 */
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/** What a finished command did. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The environment a command of the test sees: the one given (or ours) without the `npm_*` variables an
 * enclosing npm script (`npm test` in CI) exported into ours. Its user agent and lifecycle would make a
 * nested `bun pm pack` look like `npm pack` to the packages' prepack script, and its `npm_config_registry`
 * would send `bunx` past the `.npmrc` under test to the public registry. A `npm_*` value the test set
 * itself (it differs from ours) is kept.
 */
function withoutNpmScriptEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([k, v]) => !(k.startsWith("npm_") && process.env[k] === v)));
}

/** Run `argv` to completion; killed (and reported with its output so far) after `timeoutMs`. */
export async function run(argv: string[], o: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number }): Promise<Ran> {
  const proc = Bun.spawn(argv, {
    cwd: o.cwd,
    env: withoutNpmScriptEnv(o.env ?? process.env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), o.timeoutMs ?? 300_000);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/** Run and throw (with its output) unless it exits 0. */
export async function must(argv: string[], o: Parameters<typeof run>[1]): Promise<Ran> {
  const r = await run(argv, o);
  if (r.code !== 0) throw new Error(`${argv.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** A running Verdaccio. */
export interface Registry {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Start Verdaccio (under Node) with its storage in `dir`; resolves once it listens on 127.0.0.1. */
export async function startRegistry(dir: string, node: string): Promise<Registry> {
  const proc = Bun.spawn([node, join(import.meta.dir, "verdaccio.mjs"), dir], { cwd: import.meta.dir, stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`verdaccio exited before listening (code ${await proc.exited})`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  void proc.stdout.pipeTo(new WritableStream()).catch(() => {});
  const { port } = JSON.parse(text.slice(0, text.indexOf("\n"))) as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    pid: proc.pid,
    async stop() {
      proc.kill("SIGTERM");
      const killer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await proc.exited;
      clearTimeout(killer);
    },
  };
}

/** Register a user (what `npm adduser` does) and return its token. */
export async function addUser(registry: string): Promise<string> {
  const name = "agentd-e2e";
  const res = await fetch(`${registry}-/user/org.couchdb.user:${name}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: "e2e-only-password", email: "e2e@example.invalid", type: "user", roles: [] }),
  });
  const body = (await res.json()) as { token?: string };
  if (res.status !== 201 || !body.token) throw new Error(`registering a user failed: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}

/**
 * The command a shell runs for `tool` with this PATH: the first match on it, run as it is. It may be a link
 * into another folder (Debian's `/usr/bin/npm -> ../share/nodejs/npm/bin/npm-cli.js`), a version manager's
 * shim or a script; nothing here derives other paths from where it sits, so no layout of the Node install
 * is assumed.
 */
export function command(tool: string, path = process.env.PATH ?? ""): string {
  const found = Bun.which(tool, { PATH: path });
  if (!found) throw new Error(`${tool} is not on PATH (${path})`);
  return found;
}

/**
 * A folder holding only node, npm, npx and sh: a PATH for "Node is installed, Bun is not". Each entry links
 * to the command the given PATH resolves, so it runs exactly what a shell on that PATH would.
 */
export function nodeOnlyPath(dir: string, path = process.env.PATH ?? ""): string {
  const bin = join(dir, "node-only-bin");
  mkdirSync(bin, { recursive: true });
  for (const tool of ["node", "npm", "npx", "sh"]) symlinkSync(command(tool, path), join(bin, tool));
  return bin;
}
