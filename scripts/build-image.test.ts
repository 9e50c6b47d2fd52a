/**
 * The container image itself, where the machine has buildah or podman (.ci/run installs buildah from
 * Debian's packages when it can): scripts/build-image.sh builds the Containerfile FROM scratch and the
 * image's configuration says non-root 65532, agentd as the entrypoint. Running it needs a container
 * runtime that nested sandboxes often refuse; scripts/image-rootfs.test.ts runs the same root filesystem.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const tool = ["podman", "buildah"].find((t) => Bun.spawnSync(["sh", "-c", `command -v ${t}`]).exitCode === 0);
const ctx = mkdtempSync(join(tmpdir(), "agentd-image-"));
const tag = `localhost/agentd-test:${process.pid}`;
afterAll(() => {
  if (tool) Bun.spawnSync([tool, "rmi", "-f", tag]);
  rmSync(ctx, { recursive: true, force: true });
});

test.skipIf(!tool || process.getuid?.() !== 0)(
  "scripts/build-image.sh builds a non-root image with agentd as its entrypoint",
  async () => {
    const build = Bun.spawn(["bash", join(ROOT, "scripts/build-image.sh"), tag], {
      env: { ...process.env, AGENTD_IMAGE_CONTEXT: ctx },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
    expect(err.includes("Error") ? err : "").toBe("");
    expect(code).toBe(0);
    expect(out.trim().split("\n").at(-1)).toBe(tag);
    const inspect =
      tool === "buildah" ? ["buildah", "inspect", "--type", "image", tag] : ["podman", "image", "inspect", "--format", "{{json .}}", tag];
    const image = JSON.parse(Bun.spawnSync(inspect).stdout.toString());
    const oci = image.OCIv1 ?? { config: image.Config, rootfs: { diff_ids: image.RootFS?.Layers } };
    expect(oci.config.User).toBe("65532:65532");
    expect(oci.config.Entrypoint).toEqual(["/usr/local/bin/agentd"]);
    expect(oci.rootfs.diff_ids).toHaveLength(1); // FROM scratch: the rootfs layer only
  },
  300_000,
);
