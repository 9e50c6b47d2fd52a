#!/usr/bin/env bash
# Build agentd's container image: compile the binary, assemble the root filesystem (scripts/image-rootfs.sh)
# and build the Containerfile FROM scratch with podman or buildah, whichever is installed.
# Usage: scripts/build-image.sh [TAG]     (default localhost/agentd:<package version>)
# Environment: AGENTD_IMAGE_CONTEXT=DIR keeps the build context there (default: a temporary directory).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
version="$(sed -n 's/^  "version": "\(.*\)",$/\1/p' packages/cli/package.json | head -1)"
tag="${1:-localhost/agentd:${version:-dev}}"
ctx="${AGENTD_IMAGE_CONTEXT:-$(mktemp -d -t agentd-image.XXXXXX)}"
mkdir -p "$ctx"

bash scripts/bun.sh build --compile --bytecode --splitting --format=esm --compile-jit-policy=16 --no-compile-autoload-bunfig --no-compile-autoload-dotenv packages/cli/src/main.ts --outfile "$ctx/agentd" >&2
bash scripts/image-rootfs.sh "$ctx/agentd" "$ctx/rootfs"
rm -f "$ctx/agentd"

if command -v podman >/dev/null 2>&1; then
  podman build --file Containerfile --tag "$tag" "$ctx"
elif command -v buildah >/dev/null 2>&1; then
  buildah build --file Containerfile --tag "$tag" "$ctx"
else
  echo "build-image: neither podman nor buildah is installed (Debian: apt-get install buildah); the root filesystem is in $ctx/rootfs" >&2
  exit 2
fi
echo "$tag"
