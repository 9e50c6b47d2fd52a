/**
 * The packages as a stranger gets them, through a real npm registry: build and pack every published package
 * (each library's `prepack` builds it; `bun pm pack` rewrites `workspace:*`), start Verdaccio on 127.0.0.1,
 * publish, then in fresh temporary projects install with npm and with bun and use them: the CLI through
 * `npx` with no Bun on the PATH and through `bunx`, the SDK from Node and Bun against the testkit's fake
 * gateway, the declarations under NodeNext and bundler resolution, and the testkit from `bun test` and
 * `node --test`; an install of the SDK alone on Node 20 (no EBADENGINE warning, its size), one copy of the SDK
 * beside the adapters and the testkit, and OpenTelemetry: exported by the installed binary, and one warning
 * naming `@agentd/otel` from an SDK application that asks for it without installing it. Third-party dependencies come from the public npm registry (only `@agentd` is ours).
 * One file, one flow: the setup is heavy (a ~100 MB binary, three builds), every check below reuses it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { addUser, command, must, nodeOnlyPath, run, startRegistry, type Ran, type Registry } from "./__fixtures__/registry/harness.ts";
import { npmrc, writeProject, writeSdkOnlyProject, writeTypeCheck } from "./__fixtures__/registry/projects.ts";
import { readManifest } from "./packaging/manifest.ts";
import { hostTarget } from "./packaging/cli-targets.ts";

const ROOT = resolve(import.meta.dir, "..");
/** The libraries an application installs (the fresh projects depend on these). */
const LIBRARIES = ["sdk", "adapters", "testkit"].map((p) => join(ROOT, "packages", p));
/** Every library packed and published: also the OpenTelemetry companion, which the projects do not install. */
const PUBLISHED_LIBRARIES = [...LIBRARIES, join(ROOT, "packages", "otel")];
const LIBRARY_NAMES = LIBRARIES.map((d) => readManifest(d).name);
const VERSION = readManifest(join(ROOT, "packages", "cli")).version;
const NODE = Bun.which("node");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const SETUP_MS = 25 * 60_000;

const work = mkdtempSync(join(tmpdir(), "agentd-registry-"));
const packs = join(work, "packs");
const npmApp = join(work, "npm-app");
const bunApp = join(work, "bun-app");
const elsewhere = join(work, "elsewhere");
const sdkOnlyApp = join(work, "sdk-only-app");
/** What npm printed installing the SDK alone, and the size of the node_modules it made (kB). */
let sdkOnlyInstall: Ran | undefined;
let sdkOnlyKb = 0;
let registry: Registry | undefined;
let npmEnv: Record<string, string | undefined> = {};
let nodeOnlyEnv: Record<string, string | undefined> = {};
let bunEnv: Record<string, string | undefined> = {};
/** The folder of the Node-only PATH (commands run from it by absolute path). */
let nodeBin = "";
/** Each published tarball: file count and bytes (printed, for the record). */
const tarballs: { file: string; entries: string[]; bytes: number }[] = [];

async function tarball(file: string): Promise<void> {
  const list = await must(["tar", "-tzf", file], { cwd: work });
  tarballs.push({ file: file.split("/").at(-1)!, entries: list.stdout.trim().split("\n"), bytes: statSync(file).size });
}

beforeAll(async () => {
  if (!NODE) throw new Error("node is not on PATH: this test needs Node.js ≥ 20 (the README's prerequisite)");
  mkdirSync(packs);
  // 1. Build and pack. The libraries' prepack builds dist/ (JS and .d.ts); the CLI's packages are generated.
  for (const dir of PUBLISHED_LIBRARIES)
    await must([process.execPath, "pm", "pack", "--destination", packs], { cwd: dir, timeoutMs: 600_000 });
  const cliOut = join(work, "cli-npm");
  await must([process.execPath, join(ROOT, "scripts", "build-cli.ts"), `--out=${cliOut}`], { cwd: ROOT, timeoutMs: 300_000 });
  for (const dir of ["cli", `cli-${hostTarget().name}`]) {
    await must([command("npm"), "pack", join(cliOut, dir), "--pack-destination", packs], {
      cwd: work,
      env: { ...process.env, npm_config_cache: join(work, "npm-cache") },
    });
  }
  rmSync(cliOut, { recursive: true, force: true });

  // 2. The registry, a publisher, and every tarball published.
  registry = await startRegistry(join(work, "registry"), NODE);
  const rc = npmrc(registry.url, await addUser(registry.url));
  writeFileSync(join(work, "npmrc"), rc);
  npmEnv = {
    ...process.env,
    npm_config_userconfig: join(work, "npmrc"),
    npm_config_cache: join(work, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  };
  for (const file of readdirSync(packs).map((f) => join(packs, f))) {
    await tarball(file);
    await must([command("npm"), "publish", file, "--registry", registry.url], { cwd: work, env: npmEnv, timeoutMs: 300_000 });
  }
  console.log(tarballs.map((t) => `${t.file}: ${t.entries.length} files, ${(t.bytes / 1024).toFixed(1)} kB`).join("\n"));

  // 3. Fresh projects: one installed by npm, one by bun; and a folder with no project at all.
  nodeBin = nodeOnlyPath(work);
  nodeOnlyEnv = { ...npmEnv, PATH: nodeBin };
  bunEnv = { ...process.env, BUN_INSTALL_CACHE_DIR: join(work, "bun-cache") };
  writeProject(npmApp, rc, VERSION, LIBRARY_NAMES);
  writeTypeCheck(npmApp, LIBRARIES);
  writeProject(bunApp, rc, VERSION, LIBRARY_NAMES);
  mkdirSync(elsewhere);
  writeFileSync(join(elsewhere, ".npmrc"), rc);
  await must([join(nodeBin, "npm"), "install"], { cwd: npmApp, env: nodeOnlyEnv, timeoutMs: 600_000 });
  writeSdkOnlyProject(sdkOnlyApp, rc, VERSION);
  sdkOnlyInstall = await must([join(nodeBin, "npm"), "install", "--loglevel", "warn"], {
    cwd: sdkOnlyApp,
    env: nodeOnlyEnv,
    timeoutMs: 600_000,
  });
  sdkOnlyKb = Number((await must(["du", "-sk", "node_modules"], { cwd: sdkOnlyApp })).stdout.split(/\s/)[0]);
  console.log(
    `npm install @agentd/sdk (Node ${(await must([join(nodeBin, "node"), "--version"], { cwd: work, env: nodeOnlyEnv })).stdout.trim()}): node_modules ${(sdkOnlyKb / 1024).toFixed(1)} MB`,
  );
  await must([process.execPath, "install"], { cwd: bunApp, env: bunEnv, timeoutMs: 600_000 });
}, SETUP_MS);

afterAll(async () => {
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
});

test("every package was published, and no tarball ships tests, fixtures or test support code", () => {
  expect(tarballs.map((t) => t.file).sort()).toEqual(
    ["adapters", "cli", `cli-${hostTarget().name}`, "otel", "sdk", "testkit"].map((n) => `agentd-${n}-${VERSION}.tgz`),
  );
  const testish = /\.test\.|__fixtures__|__proof__|__conformance__|\/_testing|\/_test-|\.case\.ts|fixture-replay/;
  expect(tarballs.flatMap((t) => t.entries.filter((e) => testish.test(e)).map((e) => `${t.file}: ${e}`))).toEqual([]);
});

/** The pid a store wrote into its directory's lock file (0 before it has). */
function lockHolder(dir: string): number {
  try {
    return (JSON.parse(readFileSync(join(dir, ".agentd-store.lock"), "utf8")) as { pid: number }).pid;
  } catch {
    return 0;
  }
}

/** The parent pid of a live process (Linux /proc), undefined once it is gone or a zombie. */
function parentOf(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return state === "Z" ? undefined : Number(ppid);
  } catch {
    return undefined;
  }
}

/** An OTLP/HTTP receiver on 127.0.0.1 that counts what each signal's path received and its content types. */
function startOtlpCounter() {
  const received: { path: string; type: string; bytes: number }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.arrayBuffer();
      received.push({ path: new URL(req.url).pathname, type: req.headers.get("content-type") ?? "", bytes: body.byteLength });
      return new Response(null, { status: 200 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, received, stop: () => server.stop(true) };
}

const ok = (r: Ran) => expect({ code: r.code, stderr: r.code === 0 ? "" : r.stderr }).toEqual({ code: 0, stderr: "" });

describe("with Node and no Bun on the PATH (installed by npm)", () => {
  test("bun is really absent from that PATH", async () => {
    const r = await run([join(nodeBin, "sh"), "-c", "command -v bun || echo absent"], { cwd: npmApp, env: nodeOnlyEnv });
    expect(r.stdout.trim()).toBe("absent");
  });

  test("npx agentd --help runs the platform binary", async () => {
    const r = await run([join(nodeBin, "npx"), "agentd", "--help"], { cwd: npmApp, env: nodeOnlyEnv });
    ok(r);
    expect(r.stdout).toContain("USAGE agentd");
  }, 120_000);

  test("npx agentd demo: a tool-using run, offline, with the binary as its own MCP server", async () => {
    const r = await run([join(nodeBin, "npx"), "agentd", "demo"], { cwd: npmApp, env: nodeOnlyEnv });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Order A-1042 is shipped");
  }, 120_000);

  test("npx @agentd/cli outside any project fetches the launcher and its binary", async () => {
    const r = await run([join(nodeBin, "npx"), "--yes", "@agentd/cli", "--version"], { cwd: elsewhere, env: nodeOnlyEnv });
    ok(r);
    expect(r.stdout).toStartWith(`agentd ${VERSION} `);
  }, 300_000);

  test.skipIf(process.platform !== "linux")(
    "kill -9 of node_modules/.bin/agentd ends the binary it runs, and the binary's store lock goes with it",
    async () => {
      const agentd = join(npmApp, "node_modules", ".bin", "agentd");
      const dir = join(work, "store-kill");
      const first = Bun.spawn([agentd, "store", "--dir", dir], {
        cwd: npmApp,
        env: nodeOnlyEnv,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      let holder = 0;
      try {
        // The compiled binary holds the directory's lock and writes its pid into the lock file.
        for (const until = Date.now() + 30_000; !holder && Date.now() < until; await Bun.sleep(20)) holder = lockHolder(dir);
        expect(holder).toBeGreaterThan(0);
        expect(parentOf(holder)).toBe(first.pid);
        const refused = await run([agentd, "store", "--dir", dir], { cwd: npmApp, env: nodeOnlyEnv });
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(`is in use by another store (pid ${holder} on `);
        first.kill("SIGKILL");
        for (const until = Date.now() + 10_000; parentOf(holder) !== undefined && Date.now() < until; ) await Bun.sleep(20);
        expect(parentOf(holder)).toBeUndefined();
        // A new store takes the lock: with its stdin closed at once it serves nothing and exits 0.
        const next = Bun.spawn([agentd, "store", "--dir", dir], {
          cwd: npmApp,
          env: nodeOnlyEnv,
          stdin: "pipe",
          stdout: "pipe",
          stderr: "pipe",
        });
        void next.stdin.end();
        const killer = setTimeout(() => next.kill("SIGKILL"), 30_000);
        const [code, stderr] = await Promise.all([next.exited, new Response(next.stderr).text()]).finally(() => clearTimeout(killer));
        expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      } finally {
        first.kill("SIGKILL");
        if (holder && parentOf(holder) !== undefined) process.kill(holder, "SIGKILL");
      }
    },
    120_000,
  );

  test("the SDK runs a one-shot agent from Node against the testkit's fake gateway and fake MCP server", async () => {
    const r = await run([join(nodeBin, "node"), "one-shot.mjs"], { cwd: npmApp, env: nodeOnlyEnv });
    ok(r);
    const result = JSON.parse(r.stdout) as { text: string };
    expect(result).toMatchObject({ turns: 2, calls: 1, runtime: "node" });
    expect(result.text).toStartWith("The tool said: ");
    expect(result.text).toContain("order A-7 is shipped");
  }, 120_000);

  test("the installed binary exports traces and metrics over OTLP out of the box", async () => {
    const receiver = startOtlpCounter();
    try {
      const r = await run([join(nodeBin, "npx"), "agentd", "demo"], {
        cwd: npmApp,
        env: { ...nodeOnlyEnv, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
      });
      expect(r.code).toBe(0);
      expect(r.stderr).not.toContain("otel.unavailable");
      const paths = new Set(receiver.received.filter((x) => x.bytes > 0 && x.type === "application/x-protobuf").map((x) => x.path));
      expect([...paths].sort()).toEqual(["/v1/metrics", "/v1/traces"]);
    } finally {
      receiver.stop();
    }
  }, 120_000);

  test("installing @agentd/sdk alone on Node 20 prints no EBADENGINE warning and pulls in no OpenTelemetry", async () => {
    expect(sdkOnlyInstall!.stdout + sdkOnlyInstall!.stderr).not.toContain("EBADENGINE");
    expect(readdirSync(join(sdkOnlyApp, "node_modules")).filter((d) => d.startsWith("@opentelemetry"))).toEqual([]);
    // 47 MB when the SDK depended on the OpenTelemetry SDK and exporters.
    expect(sdkOnlyKb).toBeLessThan(20 * 1024);
  });

  test("one copy of the SDK beside the adapters and the testkit (they name it as a peer)", async () => {
    const r = await run([join(nodeBin, "npm"), "ls", "@agentd/sdk", "--all", "--parseable"], { cwd: npmApp, env: nodeOnlyEnv });
    ok(r);
    expect([...new Set(r.stdout.trim().split("\n"))]).toEqual([join(npmApp, "node_modules", "@agentd", "sdk")]);
    const copies = await must(["find", "node_modules", "-path", "*/@agentd/sdk/package.json"], { cwd: npmApp });
    expect(copies.stdout.trim().split("\n")).toEqual(["node_modules/@agentd/sdk/package.json"]);
  }, 60_000);

  test("an SDK application asking for OpenTelemetry without @agentd/otel runs untraced, with one warning naming it", async () => {
    const r = await run([join(nodeBin, "node"), "otel-missing.mjs"], {
      cwd: npmApp,
      env: { ...nodeOnlyEnv, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" },
    });
    ok(r);
    const { text, warnings } = JSON.parse(r.stdout) as { text: string; warnings: string[] };
    expect(text).toBe("untraced");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toStartWith("otel.unavailable: ");
    expect(warnings[0]).toContain("npm install @agentd/otel");
  }, 60_000);

  test("serving HTTP works under Node: it listens and answers initialize", async () => {
    const r = await run([join(nodeBin, "node"), "serve-http.mjs"], { cwd: npmApp, env: nodeOnlyEnv });
    ok(r);
    expect(JSON.parse(r.stdout)).toEqual({
      listening: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/),
      status: 200,
      session: true,
      answered: true,
    });
  }, 60_000);

  test("the testkit works from Node's test runner", async () => {
    const r = await run([join(nodeBin, "node"), "--test", "testkit.node-test.mjs"], { cwd: npmApp, env: nodeOnlyEnv });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("# pass 2");
    expect(r.stdout).toContain("# fail 0");
  }, 120_000);
});

describe("the published declarations", () => {
  test("a strict NodeNext project typechecks with zero errors", async () => {
    const r = await run([NODE!, TSC, "-p", "tsconfig.json"], { cwd: npmApp, timeoutMs: 300_000 });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.code).toBe(0);
  }, 300_000);

  test("a strict bundler-resolution project typechecks with zero errors", async () => {
    const r = await run([NODE!, TSC, "-p", "tsconfig.bundler.json"], { cwd: npmApp, timeoutMs: 300_000 });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.code).toBe(0);
  }, 300_000);
});

describe("with Bun (installed by bun)", () => {
  test("bunx agentd demo", async () => {
    const r = await run([process.execPath, "x", "agentd", "demo"], { cwd: bunApp, env: bunEnv });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Order A-1042 is shipped");
  }, 120_000);

  test("bunx --package @agentd/cli agentd outside any project", async () => {
    // bunx reads registries from the user's ~/.npmrc only (not the folder's): a home of its own has one.
    const r = await run([process.execPath, "x", "--package", "@agentd/cli", "agentd", "--version"], {
      cwd: elsewhere,
      env: { ...bunEnv, HOME: elsewhere },
    });
    ok(r);
    expect(r.stdout).toStartWith(`agentd ${VERSION} `);
  }, 300_000);

  test("the SDK runs the same one-shot agent from Bun", async () => {
    const r = await run([process.execPath, "one-shot.mjs"], { cwd: bunApp, env: bunEnv });
    ok(r);
    const result = JSON.parse(r.stdout) as { text: string };
    expect(result).toMatchObject({ turns: 2, calls: 1, runtime: "bun" });
    expect(result.text).toStartWith("The tool said: ");
    expect(result.text).toContain("order A-7 is shipped");
  }, 120_000);

  test("serving HTTP works under Bun: it listens and answers initialize", async () => {
    const r = await run([process.execPath, "serve-http.mjs"], { cwd: bunApp, env: bunEnv });
    ok(r);
    expect(JSON.parse(r.stdout)).toEqual({
      listening: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/),
      status: 200,
      session: true,
      answered: true,
    });
  }, 60_000);

  test("the testkit works from bun test", async () => {
    const r = await run([process.execPath, "test", "./testkit.test.mjs"], { cwd: bunApp, env: bunEnv });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(" 1 pass");
    expect(r.stderr).toContain(" 0 fail");
  }, 120_000);
});
