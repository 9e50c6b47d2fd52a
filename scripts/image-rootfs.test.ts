/**
 * The container image's root filesystem, proved without a container runtime: scripts/image-rootfs.sh
 * assembles it around a freshly compiled binary, and the binary runs `--version`, `demo` and
 * `serve --stdio` (driven by the official MCP client) chrooted into it — as user 65532, with the root
 * mounted read-only, /proc and /dev supplied as a container runtime would (in private mount and PID
 * namespaces, so nothing leaks to the host). Needs root, Linux, `unshare` and `chroot` (CI has them).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startOtlpReceiver } from "../e2e/__fixtures__/otlp-receiver.ts";
import { COMPILE_FLAGS } from "../packages/cli/src/compile-flags.ts";

const ROOT = resolve(import.meta.dir, "..");
const has = (cmd: string) => Bun.spawnSync(["sh", "-c", `command -v ${cmd}`]).exitCode === 0;
// Root alone is not enough inside some containers: probe that private mount and PID namespaces work.
const canChroot =
  process.platform === "linux" &&
  process.getuid?.() === 0 &&
  has("unshare") &&
  has("chroot") &&
  has("ldd") &&
  Bun.spawnSync(["unshare", "--mount", "--pid", "--fork", "true"]).exitCode === 0;

const dir = mkdtempSync(join(tmpdir(), "agentd-rootfs-"));
const rootfs = join(dir, "rootfs");

/** argv that runs the image's entrypoint with `args`, the way a container runtime would. */
function inImage(args: string[]): string[] {
  const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const setup = [
    `mount --bind ${q(rootfs)} ${q(rootfs)}`,
    `mount -o remount,bind,ro ${q(rootfs)}`,
    `mount -t proc proc ${q(rootfs)}/proc`,
    `mount --rbind /dev ${q(rootfs)}/dev`,
    `exec chroot --userspec=65532:65532 ${q(rootfs)} /usr/local/bin/agentd ${args.map(q).join(" ")}`,
  ].join(" && ");
  return ["unshare", "--mount", "--pid", "--fork", "--kill-child", "sh", "-c", setup];
}

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(inImage(args), {
    env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

function files(base: string, rel = ""): string[] {
  return readdirSync(join(base, rel)).flatMap((name) => {
    const path = join(rel, name);
    return statSync(join(base, path)).isDirectory() ? [`${path}/`, ...files(base, path)] : [path];
  });
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!canChroot)("the image's root filesystem", () => {
  // Built only when the tests run: the block is skipped as a whole where chroot is not possible.
  beforeAll(async () => {
    const binary = join(dir, "agentd");
    // As `bun run build:binary` builds it: --splitting keeps lazily imported code (OpenTelemetry) out of startup.
    const build = Bun.spawn([process.execPath, "build", ...COMPILE_FLAGS, join(ROOT, "packages/cli/src/main.ts"), "--outfile", binary], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, err] = await Promise.all([build.exited, new Response(build.stderr).text()]);
    if (code !== 0) throw new Error(`bun build --compile failed: ${err}`);
    const assemble = Bun.spawnSync(["bash", join(ROOT, "scripts/image-rootfs.sh"), binary, rootfs], { stderr: "pipe" });
    if (assemble.exitCode !== 0) throw new Error(`image-rootfs.sh failed: ${assemble.stderr.toString()}`);
  }, 180_000);

  test("holds the binary, exactly the libraries ldd lists, passwd/group, and empty mount points", () => {
    const ldd = Bun.spawnSync(["ldd", join(rootfs, "usr/local/bin/agentd")]).stdout.toString();
    const libs = [...ldd.matchAll(/(?:=> )?(\/\S+) \(0x/g)].map((m) => (m[1] as string).slice(1));
    expect(libs.length).toBeGreaterThan(0);
    const expected = new Set(["usr/local/bin/agentd", "etc/passwd", "etc/group", ...libs]);
    const regular = files(rootfs).filter((f) => !f.endsWith("/"));
    expect(regular.sort()).toEqual([...expected].sort());
    for (const empty of ["proc", "dev", "tmp", "data"]) expect(readdirSync(join(rootfs, empty))).toEqual([]);
    expect(readFileSync(join(rootfs, "etc/passwd"), "utf8")).toContain("nonroot:x:65532:65532:");
    expect(files(rootfs).some((f) => /(^|\/)(sh|bash|busybox)$/.test(f))).toBe(false);
  });

  test("--version runs as 65532 on a read-only root", async () => {
    const r = await run(["--version"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^agentd \d+\.\d+\.\d+/);
  });

  test("demo runs to its answer (the binary spawns itself as the bundled MCP server)", async () => {
    const r = await run(["demo"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("119.51 EUR");
  }, 60_000);

  test("with OTEL_EXPORTER_OTLP_ENDPOINT, the demo exports its spans from inside the image", async () => {
    const receiver = startOtlpReceiver();
    try {
      const r = await run(["demo"], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
      expect(r.code).toBe(0);
      const names = receiver.spans.map((s) => s.name);
      expect(names).toContain("invoke_agent agentd");
      expect(names.filter((n) => n.startsWith("tools/call ")).length).toBe(2);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  test("serve --stdio answers the official MCP client", async () => {
    const [command, ...args] = inImage(["serve", "--stdio"]);
    const transport = new StdioClientTransport({
      command: command as string,
      args,
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
      stderr: "ignore",
    });
    const client = new Client({ name: "rootfs-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe("agentd");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("agent.run");
    } finally {
      await client.close();
    }
  }, 60_000);
});
