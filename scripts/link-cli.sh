#!/usr/bin/env bash
# Put an `agentd` command on PATH that runs this clone's sources, until @agentd/cli is published on npm.
# It writes a two-line wrapper that starts packages/cli/bin/agentd.js, the package's own launcher, which runs
# packages/cli/src/main.ts with Bun in a checkout: a pull or an edit of the sources takes effect at once.
#
# Usage: bash scripts/link-cli.sh [--remove]
# Where: $AGENTD_LINK_DIR when set; else $(npm prefix -g)/bin when writable (where `npm i -g` puts commands);
#        else ~/.local/bin, with a note when that is not on PATH. An `agentd` there that this script did not
#        write (a published @agentd/cli installed globally, say) is left alone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
marker="# agentd from a clone, written by scripts/link-cli.sh"

pick_dir() {
  if [ -n "${AGENTD_LINK_DIR:-}" ]; then echo "$AGENTD_LINK_DIR"; return; fi
  local npm_bin
  npm_bin="$(npm prefix -g 2>/dev/null)/bin" || npm_bin=""
  if [ -n "$npm_bin" ] && [ -d "$npm_bin" ] && [ -w "$npm_bin" ]; then echo "$npm_bin"; return; fi
  echo "$HOME/.local/bin"
}

dir="$(pick_dir)"
target="$dir/agentd"

if [ -e "$target" ] && ! grep -qF "$marker" "$target" 2>/dev/null; then
  echo "agentd: $target exists and was not written by this script; remove it, or set AGENTD_LINK_DIR to another folder" >&2
  exit 1
fi

if [ "${1:-}" = "--remove" ]; then
  rm -f "$target"
  echo "agentd: removed $target"
  exit 0
fi
[ $# -eq 0 ] || { echo "agentd: unknown argument '$1' (usage: bash scripts/link-cli.sh [--remove])" >&2; exit 2; }

# The launcher needs Bun on PATH to run the sources; scripts/bun.sh may have kept its copy inside the clone.
if ! command -v bun >/dev/null 2>&1 && [ ! -d "$root/.bun-local/node_modules/.bin" ]; then
  echo "agentd: bun is not installed; run 'npm run demo' once (it brings the pinned Bun in through npm), then this again" >&2
  exit 2
fi

mkdir -p "$dir"
quoted_root="$(printf '%q' "$root")"
tmp="$(mktemp "$dir/.agentd.XXXXXX")"
cat >"$tmp" <<WRAPPER
#!/bin/sh
$marker ($root)
root=$quoted_root
[ -d "\$root/.bun-local/node_modules/.bin" ] && PATH="\$root/.bun-local/node_modules/.bin:\$PATH" && export PATH
if command -v node >/dev/null 2>&1; then exec node "\$root/packages/cli/bin/agentd.js" "\$@"; fi
exec bun "\$root/packages/cli/bin/agentd.js" "\$@"
WRAPPER
chmod 755 "$tmp"
mv -f "$tmp" "$target"

echo "agentd: $target runs the sources of $root (with Bun); remove it with: bash scripts/link-cli.sh --remove"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "agentd: $dir is not on your PATH; add it, e.g. to ~/.profile: export PATH=\"$dir:\$PATH\"" >&2 ;;
esac
