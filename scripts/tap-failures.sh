#!/usr/bin/env bash
# Prints each failing assertion of a tap log with its enclosing test file and its diagnostics,
# so that the tail of a CI log (often all one gets to see) names what failed.
# Usage: bash scripts/tap-failures.sh test.log
set -uo pipefail
log="$1"
awk '
  /^# Subtest: test\// { file = $0 }
  /^[[:space:]]*not ok / { print "---- " file; print; show = 40; next }
  /^[[:space:]]*(ok |# Subtest)/ { show = 0 }
  show > 0 { print; show--; if ($0 ~ /^[[:space:]]*\.\.\.$/) show = 0 }
' "$log" | head -400
