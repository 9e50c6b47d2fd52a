#!/usr/bin/env bash
# Run the whole test suite and end with one line `N passed, N failed` computed from the real run.
# Exit status is non-zero when any test failed or the runner itself failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
report="$(mktemp -t agentd-junit.XXXXXX)"
trap 'rm -f "$report"' EXIT

bash scripts/bun.sh test --timeout 60000 --reporter=junit --reporter-outfile="$report" "$@" 2>&1
status=$?

# Count from the JUnit report's root element: <testsuites tests=… failures=… skipped=…>.
head_line="$(grep -m1 -o '<testsuites [^>]*>' "$report" 2>/dev/null || true)"
attr() { printf '%s' "$head_line" | grep -o " $1=\"[0-9]*\"" | grep -o '[0-9]*' || echo 0; }
total=$(attr tests); failed=$(attr failures); skipped=$(attr skipped)
passed=$((total - failed - skipped))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  # The runner failed outside any test case (a file that threw at load time, a crash): count it.
  failed=1
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
