#!/usr/bin/env bash
# Run the pinned Bun, bringing it in through npm when the machine has only Node and npm.
# Usage: scripts/bun.sh <bun arguments…>   (installs workspace dependencies first when they are missing)
set -euo pipefail
BUN_VERSION="1.4.4"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

have_bun() { command -v bun >/dev/null 2>&1 && [ "$(bun --version 2>/dev/null)" = "$BUN_VERSION" ]; }

if ! have_bun; then
  echo "agentd: installing bun@$BUN_VERSION through npm…" >&2
  if ! npm i -g "bun@$BUN_VERSION" >/dev/null 2>&1; then
    # No permission for a global install: keep a private copy inside the repository instead.
    npm i --prefix "$root/.bun-local" --no-save "bun@$BUN_VERSION" >/dev/null 2>&1
    export PATH="$root/.bun-local/node_modules/.bin:$PATH"
  fi
  hash -r
fi
have_bun || { echo "agentd: could not install bun@$BUN_VERSION with npm" >&2; exit 2; }

cd "$root"
# A stamp written after a successful install: a no-change install leaves node_modules' own mtime alone,
# so that cannot tell whether the dependencies are current.
stamp="node_modules/.agentd-install-stamp"
stale() {
  [ ! -f "$stamp" ] || [ bun.lock -nt "$stamp" ] && return 0
  local newer
  newer="$(find . \( -name node_modules -o -name .git -o -name .bun-local \) -prune -o -name package.json -newer "$stamp" -print -quit)"
  [ -n "$newer" ]
}
if stale; then
  bun install --frozen-lockfile >&2
  touch "$stamp"
fi
exec bun "$@"
