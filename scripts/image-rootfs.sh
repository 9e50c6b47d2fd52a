#!/usr/bin/env bash
# Assemble the container image's root filesystem around a compiled agentd binary: the binary, exactly the
# shared libraries `ldd` says it loads (and the dynamic loader), a passwd/group naming the non-root user
# 65532, and empty mount points. Nothing else: no shell, no package manager, no CA bundle (the binary
# carries its own root certificates; add NODE_EXTRA_CA_CERTS from a volume for private ones).
#
# Usage: scripts/image-rootfs.sh BINARY OUTDIR      (OUTDIR is emptied first)
# Then:  podman build -f Containerfile OUTDIR/..    (the Containerfile copies rootfs/ into FROM scratch)
set -euo pipefail
bin="${1:?usage: image-rootfs.sh BINARY OUTDIR}"
out="${2:?usage: image-rootfs.sh BINARY OUTDIR}"
[ -x "$bin" ] || { echo "image-rootfs: $bin is not an executable (build it with: bun run build:binary)" >&2; exit 2; }
command -v ldd >/dev/null || { echo "image-rootfs: ldd is missing (Debian: apt-get install libc-bin)" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out/usr/local/bin" "$out/etc" "$out/proc" "$out/dev" "$out/tmp" "$out/data"
install -m 0755 "$bin" "$out/usr/local/bin/agentd"

# `ldd` prints `name => /path (addr)` per library and `/path/ld-linux… (addr)` for the loader; the vDSO has
# no file. A statically linked binary prints "not a dynamic executable" and needs nothing.
libs="$(ldd "$bin" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u || true)"
for lib in $libs; do
  mkdir -p "$out$(dirname "$lib")"
  cp -L "$lib" "$out$lib" # the file itself where the loader will look for it, symlinks resolved
done

printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/data:/sbin/nologin\n' >"$out/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$out/etc/group"
chmod 1777 "$out/tmp"
chown 65532:65532 "$out/data" 2>/dev/null || true # the job-store / checkpoint volume's mount point
