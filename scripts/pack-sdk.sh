#!/usr/bin/env bash
# Pack the libraries as npm would download them, to use the SDK from a clone before it is published:
# `bun pm pack` in each package runs its prepack (scripts/build-packages.ts: dist/ with .d.ts) and rewrites
# `workspace:*` dependencies to the version (npm pack would not, and npm could not install the result).
#
# Usage: bash scripts/pack-sdk.sh [OUT_DIR]     (default: build/packs; prints the `npm i` line to use)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(mkdir -p "${1:-$root/build/packs}" && cd "${1:-$root/build/packs}" && pwd)"
command -v bun >/dev/null 2>&1 || { echo "agentd: bun is not installed; run 'npm run demo' once (it brings the pinned Bun in through npm)" >&2; exit 2; }

# The SDK first: the others name it as a peer and read its declarations while building.
for p in sdk otel adapters testkit; do
  echo "packing @agentd/$p…" >&2
  (cd "$root/packages/$p" && bun pm pack --destination "$out" --quiet >/dev/null)
done

version="$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$root/packages/sdk/package.json")"
echo "tarballs in $out; in your project:" >&2
echo "npm i $out/agentd-sdk-$version.tgz $out/agentd-adapters-$version.tgz"
echo "npm i -D $out/agentd-testkit-$version.tgz   # fakes for tests; OpenTelemetry: $out/agentd-otel-$version.tgz"
